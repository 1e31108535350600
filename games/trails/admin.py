from games.trails.models import TrailsGame, TrailsMove, TrailsRoom, TrailsSeat
from rooms.admin import register_game_admin

register_game_admin("trails", room=TrailsRoom, seat=TrailsSeat, game=TrailsGame, move=TrailsMove)
