"""The player's styles (chips, status line, build tree, legend, SentencePiece notes), one ``<style>`` block
the pages put once before the player's HTML. Re-exported by :mod:`views.player`."""

from __future__ import annotations

from .spans import FALLBACK_CSS

__all__ = ["PLAYER_CSS"]

PLAYER_CSS = (
    """
<style>
.bpe-pl-status{font-size:1.25rem;line-height:1.9;margin:.1rem 0 .2rem 0;}
.bpe-pl-status b.bpe-pl-k{font-size:1.45rem;}
.bpe-pl-sub{font-size:1.0rem;color:#444;line-height:1.6;}
.bpe-pl-chip{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border-radius:5px;
  padding:1px 5px;box-shadow:inset 0 0 0 1px rgba(0,0,0,.18);white-space:pre;color:#111;}
.bpe-pl-chip.bpe-pl-new{outline:2px solid var(--bpe-pl-accent,#d62728);font-weight:700;}
.bpe-pl-chip .bpe-ws{color:#8a8a8a;}
.bpe-pl-chip .bpe-byte{font-size:.75em;color:#5a2d82;border:1px dashed #8a63b8;border-radius:3px;padding:0 2px;}
.bpe-pl-chip .bpe-inv{font-size:.65em;color:#555;border:1px solid #aaa;border-radius:3px;padding:0 2px;}
.bpe-pl-tree{font-size:1.0rem;line-height:1.5;}
.bpe-pl-tree .bpe-pl-head{margin-bottom:.5rem;}
.bpe-pl-node{margin:.15rem 0;}
.bpe-pl-node .bpe-pl-meta{color:#555;font-size:.85em;margin-left:.4em;}
.bpe-pl-kids{margin-left:.7rem;padding-left:.9rem;border-left:2px solid #c8c8c8;}
.bpe-pl-future{opacity:.45;}
.bpe-pl-legend{font-size:.85rem;color:#555;}
.bpe-pl-legend .bpe-pl-chip{font-size:.8rem;}
html[data-bpe-player="playing"] .st-key-player_followers{opacity:.45;transition:opacity .2s;}
.bpe-sp-diff{font-size:.88rem;line-height:1.45;}
.bpe-sp-diff ul{padding-left:1.1rem;margin:.2rem 0;}
.bpe-sp-diff li{margin:.25rem 0;}
"""
    + FALLBACK_CSS
    + """
</style>
"""
)
