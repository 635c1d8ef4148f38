// The page: the newest reviews and the shop's counts, from the reviews API.
// Its URL names the API (?api=http://127.0.0.1:8080, the default) and,
// for a test, the replymock session (?session=ID, sent as X-Mock-Session).
import createClient from "./vendor/openapi-fetch.mjs";

const params = new URLSearchParams(location.search);
const api = (params.get("api") || "http://127.0.0.1:8080").replace(/\/+$/, "");
const headers = {};
if (params.get("session")) headers["X-Mock-Session"] = params.get("session");
const client = createClient({ baseUrl: api + "/api/v1", headers });

const $ = (id) => document.getElementById(id);

function showError(error, response) {
  const box = $("error");
  // The API's error envelope: {"success":false,"error":{"code","message"}}.
  const e = error && error.error ? error.error : { code: "http_" + response.status, message: response.statusText };
  box.textContent = `Не удалось загрузить отзывы: ${e.message} (${e.code}, HTTP ${response.status})`;
  box.dataset.code = e.code;
  box.hidden = false;
  $("counts").textContent = "";
}

function render(feedbacks) {
  const list = $("reviews");
  list.replaceChildren();
  for (const f of feedbacks) {
    const li = document.createElement("li");
    li.dataset.feedbackId = f.feedback_id;
    const stars = document.createElement("span");
    stars.className = "stars";
    stars.textContent = "★".repeat(f.product_valuation) + "☆".repeat(5 - f.product_valuation);
    stars.setAttribute("aria-label", `${f.product_valuation} из 5`);
    const meta = document.createElement("div");
    meta.className = "meta";
    meta.textContent = `${f.user_name || "Покупатель"} · ${f.product_name} · ${f.created_date}`;
    const text = document.createElement("p");
    text.className = "text";
    text.textContent = f.text || "Оценка без текста";
    li.append(stars, meta, text);
    // photos is a string holding a JSON list of {fullSize, miniSize}.
    const photos = JSON.parse(f.photos || "[]");
    if (photos.length) {
      const box = document.createElement("div");
      box.className = "photos";
      for (const p of photos) {
        const img = document.createElement("img");
        img.src = p.miniSize;
        img.alt = "Фото покупателя";
        box.append(img);
      }
      li.append(box);
    }
    if (f.answer_text) {
      const answer = document.createElement("div");
      answer.className = "answer";
      answer.textContent = f.answer_text;
      li.append(answer);
    }
    list.append(li);
  }
}

async function load() {
  const list = await client.GET("/feedbacks", { params: { query: { limit: 20 } } });
  if (list.error || !list.response.ok) return showError(list.error, list.response);
  const counts = await client.GET("/feedbacks", { params: { query: { counts_only: 1 } } });
  if (counts.error || !counts.response.ok) return showError(counts.error, counts.response);
  const c = counts.data.data;
  $("counts").textContent = `Всего ${c.total}: с ответом ${c.answered}, без ответа ${c.unanswered}`;
  render(list.data.data.feedbacks);
  document.body.dataset.loaded = "true";
}

load().catch((err) => {
  $("error").textContent = `Сервис недоступен: ${err.message}`;
  $("error").dataset.code = "network";
  $("error").hidden = false;
});
