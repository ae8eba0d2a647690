import { afterEach } from "vitest";
import { runAfterEachTest } from "./after-each-test.ts";

// The suite's setup file, run in every test file: support modules' teardown (afterEachTest).
afterEach(runAfterEachTest);
