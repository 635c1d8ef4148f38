// The code under test, as a frontend has it: the unanswered reviews,
// newest first, from the reviews API; a call answered 5xx is tried once
// more.
import type { Feedback } from "replymock";

export interface Review {
  id: string;
  rating: number;
  text: string;
}

export async function unansweredReviews(apiURL: string, headers: Record<string, string> = {}): Promise<Review[]> {
  const url = `${apiURL}/feedbacks?answered=0&limit=20`;
  let res = await fetch(url, { headers });
  if (res.status >= 500) res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`reviews: HTTP ${res.status}`);
  const body = (await res.json()) as { data: { feedbacks: Feedback[] } };
  return body.data.feedbacks.map((f) => ({ id: f.feedback_id, rating: f.product_valuation, text: f.text }));
}
