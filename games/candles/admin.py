from games.candles.models import CandlesGame, CandlesMove, CandlesRoom, CandlesSeat
from rooms.admin import register_game_admin

register_game_admin("candles", room=CandlesRoom, seat=CandlesSeat, game=CandlesGame, move=CandlesMove)
