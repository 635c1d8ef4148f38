// Compiled by tsc (npm run typecheck), not run: the bodies' types come
// from the OpenAPI documents, so a wrong field is a compile error. Each
// line marked to expect an error fails the check if it compiles.
import { connectReplymock, type AdminPaths, type Fault, type SeedReview } from "replymock";

const session = connectReplymock("http://127.0.0.1:8080").session("types");

// @ts-expect-error: txt is no field of a review
export const typo: SeedReview = { product_valuation: 5, txt: "Опечатка" };
// @ts-expect-error: product_valuation is required
export const unrated: SeedReview = { text: "Без оценки" };
// @ts-expect-error: a status is a number
export const badStatus: Fault = { error: { status: "503" } };

export async function checks(): Promise<number> {
  // @ts-expect-error: methd is no field of a fault
  await session.addFault({ methd: "GET", error: { status: 503 } });
  // @ts-expect-error: was_viewed is 0 or 1
  await session.seedReviews([{ product_valuation: 5, was_viewed: 2 }]);
  const seeded = await session.seedReviews([{ product_valuation: 5, text: "Отлично" }]);
  // @ts-expect-error: the result has no reviews field
  void seeded.reviews;
  const entry = await session.waitFor({ path: "/api/v1/feedbacks" });
  const fault = await session.failNext(1, "GET", "/feedbacks", 503);
  const id: string = fault.id;
  type Verify = AdminPaths["/__mock/verify"]["get"]["parameters"]["query"];
  const query: Verify = { session: session.id, path: "/api/v1/feedbacks", count: 1 };
  return seeded.total + entry.status + id.length + (query?.count ?? 0);
}
