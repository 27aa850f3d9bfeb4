#!/usr/bin/env node
console.log("baton");
