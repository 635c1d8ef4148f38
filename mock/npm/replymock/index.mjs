// The helper as an ES module: the CommonJS module's exports, so that
// import and require share one set of classes.
import helper from "./index.cjs";

export const { startReplymock, connectReplymock, Replymock, ReplymockServer, Session, ReplymockError, VerificationError } = helper;
