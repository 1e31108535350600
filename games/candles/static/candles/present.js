/* How the verifier words a candles game: its deal, each round and the ranking (see static/js/verify.js). */
(function (root) {
  "use strict";

  root.WickwiseVerifyPresenters = root.WickwiseVerifyPresenters || {};
  root.WickwiseVerifyPresenters.candles = function ({ gettext, fmt, seatName }) {
    return {
      deal(record, state) {
        const lines = state.hands.map((hand, seat) => fmt(gettext("%(player)s: %(candles)s"), {
          player: seatName(record, seat), candles: hand.join(" "),
        }));
        lines.push(fmt(gettext("Shelves: %(shelves)s"), { shelves: this.shelves(state.shelves) }));
        return lines;
      },
      shelves(shelves) {
        return shelves.map((shelf, i) => fmt(gettext("%(shelf)s: %(candles)s"), {
          shelf: i + 1, candles: shelf.join(" "),
        })).join(" · ");
      },
      stepDone(events) {
        return events.some((event) => event.type === "reveal");
      },
      stepTitle(state, done) {
        const round = done ? state.round - (state.finished ? 0 : 1) : state.round;
        return done
          ? fmt(gettext("Round %(round)s"), { round })
          : fmt(gettext("Round %(round)s (not finished)"), { round });
      },
      step(record, state, events) {
        const lines = [];
        const reveal = events.find((event) => event.type === "reveal");
        if (!reveal) {
          const made = state.picks.filter((pick) => pick !== null).length;
          return [fmt(gettext("%(made)s of %(seats)s picks were made before the game ended."), {
            made, seats: state.seats,
          })];
        }
        lines.push(fmt(gettext("Picks: %(picks)s"), {
          picks: reveal.picks.map((candle, seat) => `${seatName(record, seat)} ${candle}`).join(", "),
        }));
        for (const event of events.filter((e) => e.type === "place")) {
          lines.push(this.placement(record, event));
        }
        lines.push(fmt(gettext("Shelves after the round: %(shelves)s"), { shelves: this.shelves(state.shelves) }));
        lines.push(fmt(gettext("Wax so far: %(wax)s"), {
          wax: state.wax.map((wax, seat) => `${seatName(record, seat)} ${wax}`).join(", "),
        }));
        return lines;
      },
      placement(record, event) {
        const values = {
          player: seatName(record, event.seat), candle: event.candle, shelf: event.shelf + 1,
          taken: event.taken.join(" "), wax: event.wax,
        };
        if (event.how === "tip") {
          return fmt(gettext("%(player)s plays %(candle)s, the sixth on shelf %(shelf)s: collects %(taken)s "
            + "(%(wax)s wax) and starts the shelf again."), values);
        }
        if (event.how === "low") {
          return fmt(gettext("%(player)s plays %(candle)s, lower than every shelf: collects shelf %(shelf)s, "
            + "%(taken)s (%(wax)s wax), and starts it again."), values);
        }
        return fmt(gettext("%(player)s plays %(candle)s onto shelf %(shelf)s."), values);
      },
      illegalReasons() {
        return {
          already_picked: gettext("this seat had already picked a candle this round"),
          not_in_hand: gettext("that candle was not in this seat's hand"),
        };
      },
      ranking(record, ranking) {
        return ranking.map((row) => fmt(gettext("Place %(place)s: %(player)s, %(wax)s wax"), {
          place: row.place, player: seatName(record, row.seat), wax: row.score,
        }));
      },
    };
  };
})(typeof window !== "undefined" ? window : globalThis);
