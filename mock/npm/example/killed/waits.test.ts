import { writeFileSync } from "node:fs";
import { inject, test } from "vitest";
import { connectReplymock } from "replymock";

test("waits to be killed", async () => {
  const mock = connectReplymock(inject("replymockURL"));
  await mock.health();
  writeFileSync(process.env.REPLYMOCK_KILL_NOTE ?? "killed-note", mock.url);
  await new Promise((resolve) => setTimeout(resolve, 600_000));
}, 700_000);
