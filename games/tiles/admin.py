from games.tiles.models import TilesGame, TilesMove, TilesRoom, TilesSeat
from rooms.admin import register_game_admin

register_game_admin("tiles", room=TilesRoom, seat=TilesSeat, game=TilesGame, move=TilesMove)
