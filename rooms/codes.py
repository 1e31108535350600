"""Room codes and personal return codes: unambiguous alphabets, keyed hashes for storage."""

import secrets

from django.utils.crypto import salted_hmac

# No 0/O, 1/I/L: codes are read aloud and typed from phones.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
ROOM_CODE_LENGTH = 6
RETURN_CODE_LENGTH = 16  # about 79 bits: not guessable, even without rate limits


def new_room_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def normalize(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


def is_room_code(code: str) -> bool:
    return len(code) == ROOM_CODE_LENGTH and all(ch in ALPHABET for ch in code)


def new_return_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(RETURN_CODE_LENGTH))
    return "-".join(raw[i:i + 4] for i in range(0, RETURN_CODE_LENGTH, 4))


def hash_return_code(code: str) -> str:
    return salted_hmac("wickwise.rooms.return-code", normalize(code)).hexdigest()


def normalize_display(code: str) -> str:
    raw = normalize(code)
    return "-".join(raw[i:i + 4] for i in range(0, len(raw), 4))
