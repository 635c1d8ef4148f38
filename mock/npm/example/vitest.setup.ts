import type { TestProject } from "vitest/node";
import { startReplymock } from "replymock";

export default async function setup(project: TestProject) {
  const mock = await startReplymock();
  project.provide("replymockURL", mock.url);
  return () => mock.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    replymockURL: string;
  }
}
