import { describe, expect, it } from "vitest";
import { AdapterAccess, routerAdmins, terminalAccessSpec } from "../src/access/adapter-access.ts";
import { accessWarning } from "../src/config/access-spec.ts";

// Who may use one adapter: its admins always, then its dm list, everyone, or nobody else — in
// private chats and groups alike.

const admin = "telegram:1";
const friend = "telegram:2";
const stranger = "telegram:3";

describe("AdapterAccess", () => {
  it("dm none: only the admins, in private chats and in groups", () => {
    const access = new AdapterAccess({ admins: [admin], dm: "none" });
    expect(access.mayUse(admin, "private")).toBe(true);
    expect(access.mayUse(admin, "group")).toBe(true);
    expect(access.mayUse(friend, "private")).toBe(false);
    expect(access.mayUse(friend, "group")).toBe(false);
  });

  it("dm a list: the admins and those listed; a stranger in a group is not let in", () => {
    const access = new AdapterAccess({ admins: [admin], dm: [friend] });
    expect(access.mayUse(admin, "private")).toBe(true);
    expect(access.mayUse(friend, "private")).toBe(true);
    expect(access.mayUse(friend, "group")).toBe(true);
    expect(access.mayUse(stranger, "private")).toBe(false);
    expect(access.mayUse(stranger, "group")).toBe(false);
    expect(access.open).toBe(false);
  });

  it("dm everyone: anyone, anywhere", () => {
    const access = new AdapterAccess({ admins: [], dm: "everyone" });
    expect(access.open).toBe(true);
    expect(access.mayUse(stranger, "private")).toBe(true);
    expect(access.mayUse(stranger, "group")).toBe(true);
  });

  it("isAdmin: the admins only, not those merely allowed", () => {
    const access = new AdapterAccess({ admins: [admin], dm: "everyone" });
    expect(access.isAdmin(admin)).toBe(true);
    expect(access.isAdmin(friend)).toBe(false);
    // Ids are compared qualified: the same number on another adapter is someone else.
    expect(access.isAdmin("tg:1")).toBe(false);
  });

  it("the terminal's one user is allowed and an admin", () => {
    const access = new AdapterAccess(terminalAccessSpec());
    expect(access.mayUse("terminal:local", "private")).toBe(true);
    expect(access.isAdmin("terminal:local")).toBe(true);
  });
});

describe("routerAdmins", () => {
  it("gathers every adapter's admins, each once", () => {
    expect(
      routerAdmins([
        { access: { admins: ["feishu:ou_a", "feishu:ou_b"], dm: "none" } },
        { access: { admins: ["telegram:1", "feishu:ou_a"], dm: "everyone" } },
        { access: { admins: [], dm: ["tg:5"] } },
      ]),
    ).toEqual(["feishu:ou_a", "feishu:ou_b", "telegram:1"]);
  });
});

describe("accessWarning", () => {
  it("speaks up for an open adapter and for one nobody can use, not otherwise", () => {
    expect(accessWarning({ name: "tg", access: { admins: [], dm: "everyone" } })).toMatch(
      /^adapter tg: .*anyone/,
    );
    expect(accessWarning({ name: "tg", access: { admins: [], dm: "none" } })).toMatch(
      /every user will be refused/,
    );
    expect(accessWarning({ name: "tg", access: { admins: [admin], dm: "none" } })).toBeUndefined();
    expect(accessWarning({ name: "tg", access: { admins: [], dm: [friend] } })).toBeUndefined();
  });
});
