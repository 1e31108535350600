from games.pots.models import PotsGame, PotsMove, PotsRoom, PotsSeat
from rooms.admin import register_game_admin

register_game_admin("pots", room=PotsRoom, seat=PotsSeat, game=PotsGame, move=PotsMove)
