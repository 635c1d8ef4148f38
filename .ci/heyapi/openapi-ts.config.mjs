// Both documents (from REPLYMOCK_DOCS, default this clone's mock/), each
// into a client of its own. Imports end in .js so that node runs what
// tsc emits (module NodeNext).
const docs = process.env.REPLYMOCK_DOCS ?? "../../mock";
const job = (input, path) => ({ input: `${docs}/${input}`, output: { path, importFileExtension: ".js" } });
export default [job("openapi.yaml", "gen/api"), job("admin-openapi.yaml", "gen/admin")];
