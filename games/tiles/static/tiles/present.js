/* How the verifier words a tiles game: the dice, the deal, each turn's play, draw or pass, resignations
   and the ranking (see static/js/verify.js). One step is one turn: it ends when the next turn starts or
   the game ends; a resignation out of turn is told within the turn it came in. */
(function (root) {
  "use strict";

  root.WickwiseVerifyPresenters = root.WickwiseVerifyPresenters || {};
  root.WickwiseVerifyPresenters.tiles = function ({ gettext, ngettext, fmt, seatName }) {
    const colours = () => [gettext("black"), gettext("blue"), gettext("orange"), gettext("red")];

    /** "red 5", or "joker" (tile ids as docs/fairness.md gives them). */
    function tileName(tile) {
      if (tile >= 104) return gettext("joker");
      const face = tile % 52;
      return fmt(gettext("%(colour)s %(number)s"), { colour: colours()[Math.floor(face / 13)], number: (face % 13) + 1 });
    }

    const tilesText = (tiles) => tiles.map(tileName).join(", ");

    return {
      deal(record, state) {
        const lines = state.dice.map((values, index) => fmt(gettext("Dice, round %(round)s: %(rolls)s."), {
          round: index + 1,
          rolls: values.map((value, seat) => (value === null ? null : `${seatName(record, seat)} ${value}`))
            .filter(Boolean).join(", "),
        }));
        lines.push(fmt(gettext("%(player)s rolled highest and starts the game."), { player: seatName(record, state.chooser) }));
        state.hands.forEach((hand, seat) => {
          lines.push(fmt(gettext("%(player)s: %(tiles)s"), { player: seatName(record, seat), tiles: tilesText(hand) }));
        });
        lines.push(fmt(ngettext("The bag: %(count)s tile.", "The bag: %(count)s tiles.", state.bag.length),
          { count: state.bag.length }));
        return lines;
      },
      stepDone(events) {
        return events.some((event) => event.type === "turn" || event.type === "game_over");
      },
      stepTitle(state, done) {
        const turn = state.phase === "over" || !done ? state.turn : state.turn - 1;
        if (turn === 0) return gettext("Before the first turn");
        return done ? fmt(gettext("Turn %(turn)s"), { turn }) : fmt(gettext("Turn %(turn)s (not finished)"), { turn });
      },
      step(record, state, events) {
        const lines = [];
        for (const event of events) {
          const line = this.event(record, event);
          if (line) lines.push(line);
        }
        if (state.phase !== "over" && !events.some((event) => event.type === "turn")) {
          lines.push(fmt(gettext("The game ended during this turn. Tiles left in the bag: %(count)s."), {
            count: state.bag.length,
          }));
        }
        return lines;
      },
      event(record, event) {
        const player = Number.isInteger(event.seat) ? seatName(record, event.seat) : "";
        switch (event.type) {
          case "begun":
            return fmt(gettext("%(player)s starts the game."), { player });
          case "played":
            return fmt(ngettext("%(player)s plays %(count)s tile: %(tiles)s.", "%(player)s plays %(count)s tiles: %(tiles)s.",
              event.added.length), { player, count: event.added.length, tiles: tilesText(event.added) });
          case "drawn":
            return fmt(gettext("%(player)s draws a tile from the bag: %(tile)s."), { player, tile: tileName(event.tile) });
          case "passed":
            return fmt(gettext("%(player)s passes: the bag is empty."), { player });
          case "out":
            return fmt(gettext("%(player)s has no tiles left and takes place %(place)s."), { player, place: event.place });
          case "resigned":
            return fmt(gettext("%(player)s resigns."), { player });
          case "rebagged":
            return fmt(gettext("The resigned hand goes back into the bag, shuffled with the stream “rebag:%(k)s”."), { k: event.k });
          case "blocked":
            return gettext("The bag is empty and everyone in play passed: places go by the points left in hand.");
          default:
            return null;
        }
      },
      illegalReasons() {
        return {
          not_your_turn: gettext("it was another seat's turn"),
          wrong_phase: gettext("that is not a move for this moment of the game"),
          not_in_play: gettext("that seat had finished or resigned"),
          bad_table: gettext("the table is malformed"),
          table_tile_missing: gettext("a tile of the table was taken off it"),
          not_your_tile: gettext("a tile was neither on the table nor in that hand"),
          nothing_added: gettext("the play added no tile from the hand"),
          invalid_table: gettext("the table after the play is not valid"),
          bag_empty: gettext("the bag was empty: it had to pass"),
          bag_not_empty: gettext("the bag had tiles: it had to draw"),
        };
      },
      ranking(record, ranking) {
        return ranking.map((row) => {
          const values = { place: row.place, player: seatName(record, row.seat), points: row.points };
          return row.resigned
            ? fmt(gettext("Place %(place)s: %(player)s, resigned"), values)
            : fmt(ngettext("Place %(place)s: %(player)s, %(points)s point left in hand",
              "Place %(place)s: %(player)s, %(points)s points left in hand", row.points), values);
        });
      },
    };
  };
})(typeof window !== "undefined" ? window : globalThis);
