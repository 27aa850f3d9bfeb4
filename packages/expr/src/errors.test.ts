import { describe, expect, it } from "vitest";
import { ExprRuntimeError, ExprSyntaxError, ShapeError } from "./errors.js";

describe("error classes", () => {
  it("ExprSyntaxError keeps source, position and the bare reason", () => {
    const error = new ExprSyntaxError("unexpected x at 2, expected y", "a x", 2);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ExprSyntaxError");
    expect([error.source, error.position, error.reason]).toEqual(["a x", 2, "unexpected x at 2, expected y"]);
    expect(error.message).toBe("unexpected x at 2, expected y\n  a x\n    ^");
  });

  it("ExprRuntimeError always has the engine code, with or without a position", () => {
    expect(new ExprRuntimeError("boom").code).toBe("engine.expression");
    expect(new ExprRuntimeError("boom").message).toBe("boom");
    expect(new ExprRuntimeError("boom at 0", "x", 0, "output.a").message).toBe("output.a: boom at 0\n  x\n  ^");
  });

  it("ShapeError prefixes the path to the syntax error text", () => {
    const error = new ShapeError("body.a", new ExprSyntaxError("bad at 0, expected z", "?", 0));
    expect(error.path).toBe("body.a");
    expect(error.message).toBe("body.a: bad at 0, expected z\n  ?\n  ^");
  });
});
