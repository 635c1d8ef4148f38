export * from "./index.cjs";
