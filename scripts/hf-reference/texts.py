"""The texts packer's tokenizer-file counts are checked on.

Adversarial texts (runs, scripts, marks, emoji, special-token text,
escape-like text) are generated here deterministically; real documents are
files of this repository, read at generation time and stored whole in the
vectors, so the tests never depend on the files staying the same.
"""

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def adversarial():
    cases = []

    def add(name, text):
        cases.append((name, text))

    for n in (1, 2, 3, 17, 100, 1000):
        add(f"{n} spaces", " " * n)
        add(f"{n} spaces between words", "a" + " " * n + "b")
        add(f"{n} newlines", "\n" * n)
    add("spaces before a newline", "x   \n   \n\n  y")
    add("crlf run", "line\r\n" * 20 + "\r\n\r\n  end")
    add("tabs and spaces", "\t \t  \t\tx\t")
    add("ideographic and no-break spaces", "a\u3000\u3000b\u00a0\u00a0\u00a0c \u2003d\u0085e")
    add("trailing spaces", "end of text   ")
    add("digit runs", "1" * 50 + " 1234567890" * 30 + " 3.14159265358979")
    add("other numerals", "\u0969\u096a\u096b \u2460\u2461 \u216b \u00bd \uff11\uff12\uff13 \u0661\u0662")
    add("chinese", "\u6211\u4eec\u5728\u5317\u4eac\u7684\u5927\u5b66\u91cc\u5b66\u4e60\u4e2d\u6587\u548c\u82f1\u6587\u3002\u8fd9\u662f\u4e00\u4e2a\u6d4b\u8bd5\uff01")
    add("japanese", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3068\u30ab\u30bf\u30ab\u30ca\u3001\u3072\u3089\u304c\u306a\u3002\uff76\uff9e\uff77\uff9e")
    add("korean", "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8\uc640 \u1100\u1161\u11a8 \uc870\ud569\ud615")
    add("combining marks", "e\u0301 a\u0308\u0301 Z\u0351\u0352\u0353 \u212b \u0041\u030a n\u0303o")
    # The 21 canonical composition pairs whose composite is assigned since
    # Unicode 9.0 (Todhri, Tulu-Tigalari, Dives Akuru, Gurung Khema, Kirat
    # Rai): `tokenizers` normalizes with Unicode 9.0 tables and leaves them
    # apart (make-nfc-vectors.py checks every character since 9.0).
    pairs = (
        "\U000105d2\u0307 \U000105da\u0307 \U00011382\U000113c9 \U00011384\U000113bb "
        "\U0001138b\U000113c2 \U00011390\U000113c9 \U000113c2\U000113c2 \U000113c2\U000113b8 "
        "\U000113c2\U000113c9 \U00011935\U00011930 \U0001611e\U0001611e \U0001611e\U00016129 "
        "\U0001611e\U0001611f \U00016129\U0001611f \U0001611e\U00016120 \U00016121\U0001611f "
        "\U00016122\U0001611f \U00016121\U00016120 \U00016d67\U00016d67 \U00016d63\U00016d67 "
        "\U00016d69\U00016d67"
    )
    add("composition pairs new since Unicode 9", pairs)
    add("composition pairs new since Unicode 9, joined", pairs.replace(" ", "") * 3)
    add("zalgo", "h\u0335\u0321\u031b\u0300e\u0336\u0327\u0301l\u0337\u0322l\u0338o\u0334\u0303")
    add("arabic and hebrew", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 \u05e9\u05dc\u05d5\u05dd")
    add("emoji", "\U0001F469\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 \U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA \U0001F44D\U0001F3FD \u2764\ufe0f \U0001F600\U0001F600\U0001F600")
    add("special-token text", "<|endoftext|><|im_start|>user\nhi<|im_end|> <|fim_prefix|>x<|fim_suffix|> [INST] hi [/INST] <s></s> <unk> <|begin_of_text|>")
    add("added-token text", "<think>\nreason\n</think> <tool_call>{\"a\":1}</tool_call> <|file_sep|>")
    # Added tokens (SPEC §2.2): Qwen3's `<think>`, `<tool_call>`, FIM and
    # repo tokens are not special (matched as tokens), `<|im_start|>` and
    # `<|endoftext|>` are (split as text).
    add("think tags", "<think>hi</think>")
    add("think tag alone", "<think>")
    add("think tags at the ends", "<think>x</think>y<think>")
    add("adjacent added tokens", "<think></think><think><tool_call></tool_call></think>")
    add("added tokens inside words", "rethink<think>ing abc</think>def x<tool_call>y")
    add("added tokens with spaces around", " <think> \n </think>  \n\n  <tool_call>\t{}\t</tool_call>   ")
    add("added tokens on newlines", "\n<think>\n\nreason\n</think>\n\n")
    add("special and non-special mixed", "<|im_start|>assistant\n<think>\nok\n</think><|im_end|><|endoftext|></think>")
    add("special text around a non-special one", "<|im_start|><think><|im_end|><|endoftext|><tool_call><|im_start|>")
    add("added-token lookalikes", "<<think>> <thi<think>nk> </think <think <THINK> < think> <think >")
    add("fim and repo tokens", "<|fim_prefix|>def f(<|fim_suffix|>):\n<|fim_middle|>x<|fim_pad|><|repo_name|>a/b<|file_sep|>c.py")
    add("tool tokens", "<tool_call>\n{\"name\": \"x\", \"arguments\": {}}\n</tool_call><tool_response>ok</tool_response>")
    add("added tokens beside marks", "<think>e\u0301</think>\u0338 \u0301<think>a\u0308 </think>\u0338x")
    add("added tokens beside digits and punctuation", "1<think>2</think>3 !<tool_call>? ...</tool_call>...")
    # The flags of added tokens (the trained added-tokens file has one of
    # each: `[sw]` single_word, `<l>` lstrip, `<r>` rstrip, `<lr>` both,
    # `café` normalized, `<|sp|>` special over the plain `sp|>x`).
    add("single-word added token", "[sw] x[sw] [sw]x [sw]. ([sw]) \u00e9[sw] [sw]\u0301 _[sw]_ 1[sw]")
    add("stripping added tokens", "a  <l>  b <r>  c  <lr>  d\n\t<l>\u3000<r>\u00a0<lr><l><r>  ")
    add("normalized added token", "caf\u00e9 cafe\u0301 CAF\u00c9 xcaf\u00e9y cafe\u0301\u0301")
    add("special added token over a plain one", "<|sp|>x sp|>x <|sp|>sp|>x <|sp|")
    add("escape-looking text", "\\u00zz \\x41 \\n\\t \\\\ \\ud800 \\U0001F600 %00 &#x41; \\0 \\")
    add("contractions", "I'M HERE, you're there, THEY'LL see; don'T 'S 'sx 're'VE")
    add("case-folding contractions", "it'\u017f it'\u212a x'\u017fx")
    add("code", "fn main() {\n    let x: Vec<u32> = (0..10).collect();\n    println!(\"{x:?}\");\n}\n\n\n    \t// done\n")
    add("json envelope", "{\"documents\":[{\"id\":\"a\",\"url\":\"https://example.com/a\",\"format\":\"text\",\"content\":\"line\\none \\\"q\\\" \\\\\"}]}")
    add("url soup", "https://example.com/a/b?c=d&e=f#g http://x.test:8080/~user/ file:///tmp/a%20b")
    add("slashes", "a/b//c///d ////// /\n/ \r\n/")
    add("punctuation runs", "!!!??? ... --- *** ((())) [[[]]] {{{}}} ;;; \"\"\" ''' ```")
    add("long word", "a" * 3000)
    add("long mixed word", "ab" * 1500)
    add("lone surrogate-free controls", "\x00\x01\x02\x1b[31mred\x1b[0m\x7f")
    # WordPiece files (BERT, MiniLM): what BertNormalizer and
    # BertPreTokenizer classify (accents, CJK blocks, control and format
    # characters, punctuation), words over max_input_chars_per_word, text
    # that looks like the subword prefix or BERT's special tokens, and
    # characters assigned in Unicode 13 to 16 (newer than the tables the
    # reference classifies with).
    add("accents", "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00c5ngstr\u00f6m \u01c4emal \ufb01nance \u1ead\u2026 \u0218\u021b")
    add("cjk blocks", "\u4e2d\u6587English\u6df7\u5408\u30c6\u30ad\u30b9\u30c8\ud55c\uad6d\uc5b4 \U00020000\U0002a700\U0002b820\U0002ceb0\U00031350 \uf900\u3400x\u9fff")
    add("control and format characters", "a\x00b\x01c\u200bd\u200de\u00adf\ufeffg\ufffdh\U000e0001i\ue000j\x85k\u2028l\u2029m\x7f")
    add("subword prefix text", "## ##a a##b #### ##\u00e9 un##able")
    add("bert special-token text", "[CLS] hello [SEP] [UNK] [MASK] [PAD] [cls] [CLS][SEP]x")
    add("long words", "a" * 100 + " " + "b" * 101 + " " + "\u00e9" * 101 + " " + "ab" * 60 + "!")
    add("casing", "\u039f\u0394\u039f\u03a3 \u03a3\u0391\u03a3 \u0130stanbul \u0132 \u01c5 \u1e9e \u212a \u2126")
    add("symbols and punctuation", "$100 + 5^2 = 25 ~ `x` | <y> \u00a2\u00a3\u00a5 \u00a9 \u00b1 \u00d7 \u00f7 \u00bf\u00a1 \u00ab\u00bb \u201e\u201c \u2018\u2019 \u2014 \u2013 \u2e5d \U00011f43")
    add("unicode 13 to 16", "\U0001fbf0\U00010e80 \U00010570\U00010597 \ua7c0\ua7c1 \U00011f00\U00011f41 \U0001e030 \U00010d50\U00010d70 \U0001e5d0 \U00016d40 \u1c89\u1c8a \U0002ebf0")
    # Unigram files (SentencePiece): unknown characters alone and in runs
    # (fused into one unknown token), text that looks like the byte tokens
    # and the unknown token, `▁` written out, very long words (the Viterbi
    # search over every cut), whitespace runs, and characters NFKC and
    # NFKD change (ligatures, circled and full-width forms, Hangul jamo,
    # superscripts, compatibility spaces).
    add("unknown characters", "\u2603 x\u2603y \u2603\u2604\u2605 a\u0b85\u0b86\u0b87b \u16a0\u16a1 \U0001d11e\U0001d11e z")
    add("unknown runs", "\u0e01\u0e02\u0e03\u0e04\u0e05" * 20 + " \u2603" * 10 + "\u10d0\u10d1\u10d2x\u10d3")
    add("byte-token text", "<0x41> <0x0A><0xE2><0x96><0x81> <0x41 0x41> <0xZZ> <0xf0> <unk><unk>x<unk> <s></s>")
    add("metaspace character written out", "\u2581 \u2581\u2581x \u2581\u2581\u2581 a\u2581b \u2581the \u2581 \u2581")
    add("very long words", "internationalization" * 40 + " " + "\u2603a" * 200 + " " + "\u6f22\u5b57" * 150)
    add("whitespace runs in words", "a \u2581 b  c   d\t\te\n\n\nf \u3000 g\u00a0\u00a0h")
    add("nfkc-changing characters", "\ufb01nance \ufb02ow \u2460\u2461\u2462 \uff21\uff22\uff23\uff41 \u00b2\u00b3 \u2126 \u212b \u3392 \u337f \u2163 \u00bd \u2025 \u017f \u1e9b\u0323 \uff76\uff9e")
    add("hangul jamo", "\u1100\u1161\u11a8 \u1112\u1161\u11ab\u1100\u1173\u11af \u3131\u314f \ud55c\uae00 \uffa1\uffc2")
    add("compatibility spaces and marks", "a\u2002b\u2003c\u2009d\u200ae\u202ff\u205fg \u0344 \u0374 \u037e \u0387 \u1fed \u1fee")
    rng = random.Random(2026)
    alphabet = (
        list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        + list(" \n\t\r.,;:!?'\"-_/\\(){}[]<>|@#$%^&*+=~`")
        + ["\u00e9", "e\u0301", "\u4e2d", "\u3042", "\ud55c", "\U0001F600", "\u3000", "\u00a0", "\u0308", "\u2028"]
    )
    for i in range(6):
        add(f"random mix {i}", "".join(rng.choice(alphabet) for _ in range(400 + 300 * i)))
    return cases


def documents():
    names = ["README.md", "crates/packer/src/envelope.rs", "fixtures/guide.json", "fixtures/special-tokens.json", "fixtures/tricky-boundaries.json"]
    return [(f"document {name}", (ROOT / name).read_text(encoding="utf-8")) for name in names]


def all_texts():
    return adversarial() + documents()
