// @ts-check
// The Tokenize view's text and settings kept in this browser (localStorage, one entry per app path): a reload
// or a new tab -- a fresh Streamlit session -- gets them back (tokenize.js sends them as a restore).

const SAVE_MAX = 2_000_000; // characters: a longer text is not saved (localStorage holds ~5 M)

/** The localStorage key of this app's Tokenize page (one per app path). */
export function storageKey() {
  return "bpe-lab:tokenize:" + location.pathname.replace(/\/[^/]*$/, "");
}

/** @returns {{ text: string, keep: Record<string, unknown> } | null} */
export function loadSaved() {
  try {
    const raw = localStorage.getItem(storageKey());
    const saved = raw ? JSON.parse(raw) : null;
    return saved && typeof saved.text === "string" ? saved : null;
  } catch {
    return null;
  }
}

/**
 * @param {{ text: string, keep: Record<string, unknown> }} saved
 */
export function save(saved) {
  try {
    localStorage.setItem(storageKey(), JSON.stringify(saved.text.length > SAVE_MAX ? { ...saved, text: "" } : saved));
  } catch {
    // (storage full or refused: the session still holds the text)
  }
}
