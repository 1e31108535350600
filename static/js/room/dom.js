/* Small helpers of the room page: its words (Django's JavaScript catalog, loaded before the modules),
   finding and showing nodes, and storage that survives private browsing refusing it. */

export const gettext = window.gettext || ((text) => text);
export const ngettext = window.ngettext || ((one, many, n) => (n === 1 ? one : many));
const interpolate =
  window.interpolate || ((format, values) => format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key])));

/* A translated format with its named values: say(gettext("Seat %(n)s"), { n: 2 }). */
export function say(format, values) {
  return interpolate(format, values, true);
}

export function $(id) {
  return document.getElementById(id);
}

export function show(id, visible) {
  const node = typeof id === "string" ? $(id) : id;
  if (node) node.hidden = !visible;
}

export function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/* Unchanged words are not written again, so a live region does not announce them twice. */
export function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

const memoryStore = {};

export function storageGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return memoryStore[key] || null;
  }
}

export function storageSet(key, value) {
  memoryStore[key] = value;
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // kept in memory for this page
  }
}

/* static/js/sound.js, a classic script loaded before the modules; silent without it. */
export const Sound = window.WickwiseSound || { play() {}, isMuted: () => true };
