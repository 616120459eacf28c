"""The torture set: short texts that exercise every pre-tokenizer branch and the edges of BPE encoding.

English with contractions in every case, code (indentation, CRLF, tabs), CJK, Arabic, Devanagari (combining
vowel signs), emoji with ZWJ sequences, skin tones and flags, digit runs (ASCII, Arabic-Indic, Devanagari),
whitespace runs (ending in newlines, NBSP, ideographic space), control characters, combining marks and
compatibility ligatures, URLs, special-token spellings, and the empty and one-character texts.
"""

from __future__ import annotations

TORTURE = [
    "Hello, world! How's it going? I'LL be there; they'RE fine, we've, she'd, I'm, it's 'S 'll 'Ve",
    "def f(x):\n    return x**2  # comment\n\n\tif a != b:\n\t\tpass\r\n",
    "我爱北京天安门。日本語のテキスト、カタカナ、ひらがな。한국어 텍스트입니다.",
    "مرحبا بالعالم! هذا نص عربي.",
    "नमस्ते दुनिया, यह हिंदी पाठ है। क्षत्रिय",
    "👨‍👩‍👧‍👦 👍🏽 👋🏿 🏳️‍🌈 🇺🇸🇫🇷🇯🇵 ❤️ 🧑🏿‍💻 👩🏽‍🚀",
    "1234567890 3.14159 1,000,000 000000000000000000000000000000001 ١٢٣٤٥ ४२",
    "   leading spaces and trailing   \n\n\n   \n  \t \n",
    "a  b   c    d\u00a0e\u2003f\u3000g",
    "words then newlines\n\n\n\nand spaces then newline   \n",
    "tabs\t\t\tand\r\n\r\nCRLF\r\n",
    "ALLCAPS CamelCaseWord snake_case_word kebab-case HTTPServer iPhone XMLHttpRequest",
    "'s's 'ſ 'K 'ﬆ ǅ ǈ DON'T don't O'Neil rock'n'roll",
    "\x00\x01\x1c\x1d\x1e\x1f\x7f\x85 \u200b\u200d\ufeff",
    "x̃ é é Ω Å ﬁ ﬀ",
    "https://example.com/path?q=1&r=2#frag foo@bar.com C:\\Users\\x",
    "<|endoftext|> is a special-token string, so is <|fim_prefix|>, <|endofprompt|> and <|fim_suffix|>",
    "\n",
    " ",
    "",
    "    ",
    "a\n",
    "!!!\n\n?",
    "..., ;;;\r\n\r\n",
    "  \n",
    "\r\r\n\n",
    " \u00a0\n",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "Ελληνικά: Καλημέρα κόσμε. Русский: Съешь же ещё этих мягких французских булок. עברית: שלום עולם",
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ Tiếng Việt có dấu: Người ơi! বাংলা লিপি தமிழ் எழுத்து",
    "東京2024年3月15日、価格は¥1,980です。ＡＢＣ１２３ｱｲｳ",
    'x=1;y=2\nfor(i=0;i<10;i++){sum+=a[i];}\n<div class="a">&amp;</div>',
]

#: Chunks longer than the encoders' heap threshold (runs of one character, pairs, spaces, CJK).
LONG_CHUNKS = [
    "x" * 3000,
    "ab" * 2000,
    " " * 5000 + "a",
    "é" * 1500,
    "9" * 4000,
    "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(2000)),
]


def real_text() -> str:
    """1.5 MB of real text: English prose, multilingual quotes and UI strings, Python code (bench corpora)."""
    from testkit import corpora

    text = corpora.english(600_000) + corpora.multilingual(600_000) + corpora.python_code(300_000)
    assert len(text.encode("utf-8")) >= 1_000_000
    return text


def long_texts_differing(ours, reference) -> list[str]:
    """The long texts (each of :data:`LONG_CHUNKS`, then :func:`real_text`'s 1.5 MB) on which ``ours``
    (a ``bpe.Tokenizer``, its chunk cache emptied first, so the heap path runs on a cold cache) encodes other
    ids than ``reference(text)`` (the reference's plain-text encode), each named by its first characters and
    size; empty when every one matches."""
    differing = []
    for text in [*LONG_CHUNKS, real_text()]:
        ours._cache.clear()
        if getattr(ours, "_rank_merge", None) is not None:
            ours._rank_merge.forget()  # its merged pieces too
        if ours.encode_ordinary(text) != reference(text):
            differing.append(f"{text[:12]!r}... ({len(text):,} characters)")
    return differing
