import { describe, expect, it } from "vitest";
import { compile, isOneOf, sql } from "./sql";

describe("isOneOf", () => {
  const column = sql`k."keyHash"`;

  it("is an equality for one value", () => {
    expect(compile(sql`WHERE ${isOneOf(column, ["a"])} AND x = ${1}`)).toEqual({
      text: 'WHERE k."keyHash" = $1 AND x = $2',
      values: ["a", 1],
    });
  });

  it("lists several values, one parameter each", () => {
    expect(compile(sql`WHERE ${isOneOf(column, ["a", "b", "c"])}`)).toEqual({
      text: 'WHERE k."keyHash" IN ($1, $2, $3)',
      values: ["a", "b", "c"],
    });
  });

  it("matches nothing for no value", () => {
    expect(compile(sql`WHERE ${isOneOf(column, [])}`)).toEqual({ text: "WHERE FALSE", values: [] });
  });
});
