// Mailbox of the merge player (components/merge_player): the text window, the controls and a live room's
// play state ("follow") travel as elements of their own, so each is re-sent only when it changes. This
// module hands their data to the player module (player.js) through one registry on globalThis; the player
// may mount before or after.
const REG = (globalThis[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });

export default function mailbox({ name, data }) {
  const kind = name.endsWith("_window") ? "window" : name.endsWith("_follow") ? "follow" : "control";
  REG.box[kind] = data;
  for (const listener of REG.listeners) listener(kind, data);
  return () => {
    if (REG.box[kind] === data) delete REG.box[kind];
  };
}
