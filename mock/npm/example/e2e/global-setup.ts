import { startReplymock } from "replymock";

export default async function globalSetup() {
  const mock = await startReplymock();
  process.env.REPLYMOCK_URL = mock.url; // the workers' connectReplymock() reads it
  return () => mock.stop();
}
