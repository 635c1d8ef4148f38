// The control panel's words in English and Russian. The page speaks the
// browser's language (Russian for ru-*, else English) until a person picks
// one in the header; the pick is kept in this browser. Elements with
// data-i18n take the text of their key, data-i18n-aria their aria-label;
// app.js asks t(key, {name: value}) for the rest.
"use strict";

const MESSAGES = {
  en: {
    "title": "replymock — control panel",
    "serving": "Serving", "reviews-word": "reviews", "version-word": "version", "language": "Language",
    "token-button": "Admin token…", "token-title": "Admin token", "token-needed": "This server needs its admin token",
    "token-kept": "It is kept in this tab only.", "token-label": "Token", "save": "Save",
    "token-refused": "That token was refused.", "token-needed-error": "the admin token is needed",
    "scenario": "Scenario", "active-scenario": "Active scenario", "switch": "Switch", "based-on": "Based on the scenario {name}.",
    "dismiss": "Dismiss", "read-only-title": "Read-only demo.",
    "read-only-why": "This server runs with --read-only: nobody can change it here, so the controls that would are off. The shop still lives: its clock runs, reviews arrive and get their replies.",
    "read-only-control": "Off: this server is read-only (--read-only)",
    "more-text": "Show all", "less-text": "Show less",
    "break-and-heal": "Break and heal", "latency": "Latency on every API answer:", "apply": "Apply",
    "errors": "Errors:", "errors-of": "of API requests answer", "error-status": "Error status",
    "drop": "Drop every connection (no answer)",
    "page-drift": "Page drift: 3 new reviews arrive on top between list pages, 1 gets answered",
    "stale-read": "Stale reads: the 2 settings reads after a save show the settings before it",
    "counts-lag": "Counts lag: counts_only leaves out the 3 newest reviews, so a badge disagrees with the list",
    "reply-rejected": "Rejected replies: about a third of list reads see 1 more answer rejected by moderation, its review unanswered again", "rate-limit": "Rate limit:", "requests-per-window": "Requests per window",
    "requests-per": "requests per", "window-seconds": "Window in seconds", "seconds-short": "s", "require": "Require",
    "strict": "Strict: a request with warnings (unknown parameters, the upstream's names…) answers 400",
    "active-faults": "Active faults", "heal": "Heal: remove every fault and switch", "clear-log": "Clear the request log",
    "reset": "Reset sessions: settings, data and log…",
    "scope-scenario": "Switch acts on every session (session=*): sessions that picked their own scenario follow too.",
    "scope-faults": "Every control here acts on every session (session=*), whether a request sends X-Mock-Session or not.",
    "scope-data": "Of the default session: API requests without X-Mock-Session.",
    "scope-log": "Of every session; clearing clears every session's.",
    "heal-help": "Heal also switches from a scenario that fails requests (down, flaky, unauthorized…) to the one this browser last saw serving, else to default.",
    "healed": "Healed: {what}.", "healed-nothing": "Nothing to heal: no run-time fault or switch, and the scenario serves.",
    "healed-one-fault": "removed 1 fault", "healed-faults": "removed {n} faults", "healed-switches": "switched off {what}",
    "sw-auth": "auth", "sw-rate": "the rate limit", "sw-strict": "strict mode",
    "healed-scenario": "switched from {from} to {to} for every session",
    "still-fails": "The scenario {name} itself still fails requests: see Active faults.",
    "reset-confirm": "Reset every session: settings, living shops, fault counters, rate limits, run-time faults and the request log go back to the start. Scenario choices stay.",
    "n-ms": "{n} ms", "col-ms": "ms", "median": "median", "j-rate-limit": "rate limit", "j-client-gone": "(client gone)",
    "warnings-note": "The API's own words, as it sends them in X-Mock-Warning.",
    "kind-latency": "latency", "kind-error": "error", "kind-drop": "drop", "kind-truncate": "truncate",
    "kind-page_drift": "page drift", "kind-stale_read": "stale reads", "kind-counts_lag": "counts lag", "kind-reply_rejected": "rejected replies",
    "f-after": "after {n}", "f-times": "{n} times",
    "of-scenario": "scenario {name}",
    "auth-on": "auth: every API request needs its bearer token (401 without)",
    "auth-off": "auth: switched off, requests pass without a token",
    "auth-let-in": "Let requests in without a token", "auth-require": "Require the token again",
    "scenario-rate": "rate limit: {n} per {w}, 429 past it", "rate-replaced": "(replaced by the run-time limit below)",
    "remove": "Remove", "remove-fault": "Remove fault {fault}",
    "runtime-auth": "auth: bearer token required (run-time)", "runtime-rate": "rate limit: {n} per {w}",
    "strict-on": "strict: on", "strict-off": "strict: off", "none-behaves": "none: the API behaves",
    "data": "Data", "chart-title": "Reviews by rating", "living-shop": "Living shop", "clock": "Clock:",
    "clock-frozen": "(frozen: it moves only when advanced)", "clock-real": "(real: it follows time)",
    "advance-by": "Move the clock ahead by", "10m": "10 minutes", "1h": "1 hour", "6h": "6 hours", "24h": "1 day",
    "advance": "Advance", "newest": "Newest reviews",
    "snapshot": "Snapshot of the default session", "snapshot-save": "Save a snapshot", "snapshot-restore": "Restore a snapshot…",
    "snapshot-saved": "Saved {file}: settings, seeded reviews, the living shop, faults and their counters.",
    "snapshot-restored": "Restored from {file}.", "snapshot-dropped": "Restored from {file}, but for: {what}",
    "seeded-replace": "({n} seeded, instead of the scenario's)", "seeded-append": "({n} seeded, added to the scenario's)",
    "n-answered": "{n} answered", "n-waiting": "{n} waiting for a reply", "rating-only": "(rating only)",
    "a-draft": "a draft, waiting for a person", "not-answered": "not answered yet",
    "a-rejected": "rejected by moderation",
    "requests": "Requests", "log-help": "Newest first; select a row for the whole request and answer.",
    "log-warn-help": "marks a request with warnings: a parameter the API ignored, or another client mistake.",
    "col-status": "Status", "col-method": "Method", "col-path": "Path", "col-time": "Time", "col-session": "Session",
    "col-scenario": "Scenario", "col-fault": "Fault or error", "no-answer": "no answer", "one-warning": "1 warning", "n-warnings": "{n} warnings",
    "request-id": "(request {id})", "cut": "(cut for the journal)", "warnings": "Warnings", "request": "Request", "answer": "Answer",
    "settings": "Auto-reply settings", "col-for": "For", "col-mode": "Mode", "col-tone": "Tone", "col-signature": "Signature",
    "col-empty": "Empty reviews", "col-from": "From", "always": "always", "n-star-reviews": "{n}★ reviews", "questions": "questions",
    "unified": "One set of settings for all ratings (mode and tone per rating).", "separate": "Separate settings per rating.",
  },
  ru: {
    "title": "replymock — панель управления",
    "serving": "Сценарий", "reviews-word": "отзывов", "version-word": "версия", "language": "Язык",
    "token-button": "Токен администратора…", "token-title": "Токен администратора", "token-needed": "Этому серверу нужен токен администратора",
    "token-kept": "Он хранится только в этой вкладке.", "token-label": "Токен", "save": "Сохранить",
    "token-refused": "Этот токен не подошёл.", "token-needed-error": "нужен токен администратора",
    "scenario": "Сценарий", "active-scenario": "Активный сценарий", "switch": "Включить", "based-on": "Основан на сценарии {name}.",
    "dismiss": "Закрыть", "read-only-title": "Демо только для просмотра.",
    "read-only-why": "Сервер запущен с --read-only: здесь ничего нельзя изменить, поэтому такие кнопки выключены. Магазин при этом живёт: часы идут, приходят отзывы и ответы на них.",
    "read-only-control": "Выключено: сервер только для просмотра (--read-only)",
    "more-text": "Показать целиком", "less-text": "Свернуть",
    "break-and-heal": "Сломать и починить", "latency": "Задержка каждого ответа API:", "apply": "Применить",
    "errors": "Ошибки:", "errors-of": "запросов к API получают", "error-status": "Статус ошибки",
    "drop": "Обрывать каждое соединение (без ответа)",
    "page-drift": "Сдвиг страниц: между страницами списка сверху приходят 3 новых отзыва, на 1 отвечают",
    "stale-read": "Устаревшее чтение: 2 чтения настроек после сохранения показывают настройки до него",
    "counts-lag": "Отстающие счётчики: counts_only не считает 3 новейших отзыва, и счётчик расходится со списком",
    "reply-rejected": "Отклонённые ответы: примерно каждое третье чтение списка видит ещё 1 ответ, отклонённый модерацией, и отзыв снова без ответа", "rate-limit": "Лимит запросов:", "requests-per-window": "Запросов за окно",
    "requests-per": "запросов за", "window-seconds": "Окно в секундах", "seconds-short": "с", "require": "Требовать",
    "strict": "Строгий режим: запрос с предупреждениями (неизвестные параметры, имена из API маркетплейса…) получает 400",
    "active-faults": "Что сейчас ломает ответы", "heal": "Починить: убрать все сбои и переключатели", "clear-log": "Очистить журнал запросов",
    "reset": "Сбросить сессии: настройки, данные и журнал…",
    "scope-scenario": "Переключает все сессии (session=*): сессии, выбравшие свой сценарий, тоже.",
    "scope-faults": "Всё здесь действует на все сессии (session=*), с заголовком X-Mock-Session и без него.",
    "scope-data": "Сессии default: запросы к API без X-Mock-Session.",
    "scope-log": "Всех сессий; очистка очищает журнал каждой.",
    "heal-help": "Кроме того, «Починить» переключает со сценария, который ломает запросы (down, flaky, unauthorized…), на тот, что этот браузер последним видел работающим, иначе на default.",
    "healed": "Починено: {what}.", "healed-nothing": "Чинить нечего: сбоев и переключателей нет, сценарий отвечает как должно.",
    "healed-one-fault": "убран 1 сбой", "healed-faults": "убрано сбоев: {n}", "healed-switches": "выключено: {what}",
    "sw-auth": "авторизация", "sw-rate": "лимит запросов", "sw-strict": "строгий режим",
    "healed-scenario": "все сессии переключены со сценария {from} на {to}",
    "still-fails": "Сценарий {name} сам по-прежнему ломает запросы: см. «Что сейчас ломает ответы».",
    "reset-confirm": "Сбросить все сессии: настройки, живые магазины, счётчики сбоев, лимиты, сбои и журнал запросов вернутся к началу. Выбранные сценарии останутся.",
    "n-ms": "{n} мс", "col-ms": "мс", "median": "медиана", "j-rate-limit": "лимит запросов", "j-client-gone": "(клиент ушёл)",
    "warnings-note": "Слова самого API, на английском, как в заголовке X-Mock-Warning.",
    "kind-latency": "задержка", "kind-error": "ошибка", "kind-drop": "обрыв", "kind-truncate": "обрезка",
    "kind-page_drift": "сдвиг страниц", "kind-stale_read": "устаревшее чтение", "kind-counts_lag": "отстающие счётчики", "kind-reply_rejected": "отклонённые ответы",
    "f-after": "после {n}", "f-times": "{n} раз",
    "of-scenario": "сценарий {name}",
    "auth-on": "авторизация: каждый запрос к API требует bearer-токен (иначе 401)",
    "auth-off": "авторизация: отключена, запросы проходят без токена",
    "auth-let-in": "Пускать запросы без токена", "auth-require": "Снова требовать токен",
    "scenario-rate": "лимит: {n} за {w}, сверх него 429", "rate-replaced": "(заменён лимитом ниже)",
    "remove": "Убрать", "remove-fault": "Убрать сбой {fault}",
    "runtime-auth": "авторизация: нужен bearer-токен (включено здесь)", "runtime-rate": "лимит: {n} за {w}",
    "strict-on": "строгий режим: вкл.", "strict-off": "строгий режим: выкл.", "none-behaves": "ничего: API отвечает как должно",
    "data": "Данные", "chart-title": "Отзывы по оценкам", "living-shop": "Живой магазин", "clock": "Часы:",
    "clock-frozen": "(остановлены: идут только по кнопке)", "clock-real": "(идут вместе со временем)",
    "advance-by": "Перевести часы вперёд на", "10m": "10 минут", "1h": "1 час", "6h": "6 часов", "24h": "1 день",
    "advance": "Перевести", "newest": "Новые отзывы",
    "snapshot": "Снимок сессии default", "snapshot-save": "Сохранить снимок", "snapshot-restore": "Восстановить снимок…",
    "snapshot-saved": "Сохранён {file}: настройки, добавленные отзывы, живой магазин, сбои и их счётчики.",
    "snapshot-restored": "Восстановлено из {file}.", "snapshot-dropped": "Восстановлено из {file}, кроме: {what}",
    "seeded-replace": "({n} загружено вместо данных сценария)", "seeded-append": "({n} загружено вдобавок к данным сценария)",
    "n-answered": "с ответом: {n}", "n-waiting": "ждут ответа: {n}", "rating-only": "(только оценка)",
    "a-draft": "черновик ответа ждёт проверки", "not-answered": "ответа пока нет",
    "a-rejected": "отклонён модерацией",
    "requests": "Запросы", "log-help": "Новые сверху; выберите строку, чтобы увидеть весь запрос и ответ.",
    "log-warn-help": "отмечает запрос с предупреждениями: параметр, который API пропустил, или другая ошибка клиента.",
    "col-status": "Статус", "col-method": "Метод", "col-path": "Путь", "col-time": "Время", "col-session": "Сессия",
    "col-scenario": "Сценарий", "col-fault": "Сбой или ошибка", "no-answer": "нет ответа", "one-warning": "1 предупреждение", "n-warnings": "предупреждений: {n}",
    "request-id": "(запрос {id})", "cut": "(обрезано для журнала)", "warnings": "Предупреждения", "request": "Запрос", "answer": "Ответ",
    "settings": "Настройки автоответов", "col-for": "Для", "col-mode": "Режим", "col-tone": "Тон", "col-signature": "Подпись",
    "col-empty": "Пустые отзывы", "col-from": "С даты", "always": "всегда", "n-star-reviews": "отзывы на {n}★", "questions": "вопросы",
    "unified": "Одни настройки для всех оценок (режим и тон — для каждой свои).", "separate": "Свои настройки для каждой оценки.",
  },
};

const LANG_KEY = "replymock-lang";

// lang is the page's language: the one picked, else the browser's.
function lang() {
  const picked = localStorage.getItem(LANG_KEY);
  if (picked && MESSAGES[picked]) return picked;
  const first = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return String(first).toLowerCase().startsWith("ru") ? "ru" : "en";
}

// NUMBERS formats counts for the page's language.
let NUMBERS = "en";

function setLang(l) {
  localStorage.setItem(LANG_KEY, l);
  translatePage();
}

// t is the text of key in the page's language, with {name} filled from vars.
function t(key, vars) {
  const text = MESSAGES[lang()][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (vars && name in vars ? String(vars[name]) : m));
}

// translatePage writes the page's fixed words in its language.
function translatePage() {
  const l = lang();
  NUMBERS = l === "ru" ? "ru-RU" : "en-US";
  document.documentElement.lang = l;
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-aria]").forEach((el) => el.setAttribute("aria-label", t(el.dataset.i18nAria)));
}
