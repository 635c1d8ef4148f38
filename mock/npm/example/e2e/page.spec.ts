import { test as base, expect } from "@playwright/test";
import { connectReplymock, type Session } from "replymock";

const mock = connectReplymock(); // REPLYMOCK_URL, from global-setup.ts

// Each test has a session of its own: the page's requests carry its id.
const test = base.extend<{ session: Session }>({
  session: async ({ page }, use, testInfo) => {
    const session = mock.session(testInfo.title);
    await page.setExtraHTTPHeaders(session.headers);
    await use(session);
  },
});

test("shows the reviews seeded into its session", async ({ page, session }) => {
  await session.seedReviews([
    { product_valuation: 5, text: "Отличный чайник", answer_text: "Спасибо за отзыв!" },
    { product_valuation: 1, text: "Пришёл с трещиной" },
  ]);
  await page.goto(`/?api=${mock.url}`);
  await expect(page.locator("#reviews li .text")).toHaveText(["Отличный чайник", "Пришёл с трещиной"]);
  await expect(page.locator("#counts")).toHaveText("Всего 2: с ответом 1, без ответа 1");
});

test("shows the error of a failed call", async ({ page, session }) => {
  await session.failNext(1, "GET", "/feedbacks", 503);
  await page.goto(`/?api=${mock.url}`);
  await expect(page.locator("#error")).toContainText("HTTP 503");
  await session.verify({ method: "GET", path: "/api/v1/feedbacks" }, { count: 1 });
});
