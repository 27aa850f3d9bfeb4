import { describe, expect, it } from "vitest";
import { classifyAddress } from "./address-class.js";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", ["loopback"]],
    ["127.0.0.2", ["loopback"]],
    ["::1", ["loopback"]],
    ["0.0.0.0", ["unspecified", "loopback"]],
    ["::", ["unspecified", "loopback"]],
    ["::ffff:127.0.0.1", ["loopback"]],
    ["::ffff:7f00:2", ["loopback"]],
    ["::127.0.0.1", ["loopback"]], // IPv4-compatible
    ["2002:7f00:1::", ["loopback"]], // 6to4
    ["64:ff9b::7f00:1", ["loopback"]], // NAT64
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", ["loopback"]], // Teredo, client 127.0.0.1 inverted
    ["169.254.169.254", ["link-local"]],
    ["::ffff:a9fe:a9fe", ["link-local"]],
    ["fe80::1", ["link-local"]],
    ["224.0.0.1", ["multicast"]],
    ["ff02::1", ["multicast"]],
    ["255.255.255.255", ["broadcast"]],
    ["10.1.2.3", ["private"]],
    ["172.16.0.1", ["private"]],
    ["192.168.1.1", ["private"]],
    ["100.64.0.1", ["private"]],
    ["::ffff:10.0.0.1", ["private"]],
    ["fd12:3456::1", ["unique-local"]],
    ["93.184.216.34", ["public"]],
    ["2606:2800:220:1::1", ["public"]],
  ])("%s is %j", (address, classes) => {
    expect(classifyAddress(address).classes).toEqual(classes);
  });

  it("names the IPv4 address an IPv6 form carries", () => {
    expect(classifyAddress("::ffff:a9fe:a9fe")).toMatchObject({ family: 6, embedded: "169.254.169.254" });
  });
});
