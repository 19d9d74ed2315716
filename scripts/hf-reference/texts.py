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
