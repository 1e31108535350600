"""Display names: what a player may be called. A name that reads as a bot's ("Bot 1", "bot", "robô", "bot
playing for Ana", in any of the site's languages) is refused, so that a person cannot pass for one; the
room also marks every bot with a badge that no name can make (static/js/room/seats.js)."""

from __future__ import annotations

import re
import unicodedata

NAME_MAX = 24

# The words the site uses for a bot, as a name would spell them once folded (no accents, lower case, "0"
# read as "o"): English, Brazilian and European Portuguese.
_BOT_WORDS = ("bot", "bots", "robot", "robots", "robo", "robos")
_STAND_IN = ("bot playing for", "bot jogando por", "bot a jogar por")
_FOLDED_BOT = re.compile(r"^(?:" + "|".join(_BOT_WORDS) + r")(?: ?\d+)?$")


def fold(name: str) -> str:
    """The name as it reads: accents, case, punctuation and spacing set aside, and a leading word's 0 as o."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    words = re.sub(r"[\W_]+", " ", plain.casefold()).split()
    if words:
        head = re.match(r"^([a-z0]*)(\d*)$", words[0])  # "B0t1": the word, then its number
        if head:
            words[0:1] = [w for w in (head.group(1).replace("0", "o"), head.group(2)) if w]
    return " ".join(words)


def reads_as_bot(name: str) -> bool:
    folded = fold(name)
    return bool(_FOLDED_BOT.match(folded)) or folded.startswith(_STAND_IN)
