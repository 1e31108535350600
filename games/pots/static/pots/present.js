/* How the verifier words a pots game: the first deal, each hand's cards and the ranking (see static/js/verify.js). */
(function (root) {
  "use strict";

  const HONEY = ["+2", "+4", "+6", "+8", "+10"];

  root.WickwiseVerifyPresenters = root.WickwiseVerifyPresenters || {};
  root.WickwiseVerifyPresenters.pots = function ({ gettext, ngettext, fmt, seatName }) {
    function cardName(card) {
      if (typeof card === "number") return fmt(gettext("number %(n)s"), { n: card });
      if (HONEY.includes(card)) return fmt(gettext("honey %(card)s"), { card });
      if (card === "x2") return gettext("the twin wick");
      if (card === "snuffer") return gettext("a snuffer");
      if (card === "bellows") return gettext("a bellows");
      return gettext("a saucer");
    }

    function rowText(row) {
      const cards = row.numbers.concat(row.extras).map((card) => (card === "x2" ? "×2" : String(card)));
      if (row.saucer) cards.push(gettext("saucer"));
      return cards.length ? cards.join(" ") : "–";
    }

    function scoresText(record, scores) {
      return scores.map((score, seat) => `${seatName(record, seat)} ${score}`).join(", ");
    }

    return {
      deal(record, state) {
        const lines = [fmt(gettext("The deck was shuffled from the seed. First dealer: %(player)s."), {
          player: seatName(record, (((state.dealer - state.hands.length) % state.seats) + state.seats) % state.seats),
        })];
        if (state.hands.length) return lines; // the first hand ended during its deal: the hands tell the rest
        state.rows.forEach((row, seat) => {
          lines.push(fmt(gettext("%(player)s: %(cards)s"), { player: seatName(record, seat), cards: rowText(row) }));
        });
        if (state.pending) {
          lines.push(fmt(gettext("%(player)s turned up %(card)s and chooses a player."), {
            player: seatName(record, state.pending.by), card: cardName(state.pending.card),
          }));
        }
        return lines;
      },
      stepDone(events) {
        return events.some((event) => event.type === "hand_over");
      },
      stepTitle(state, done) {
        if (!done) return fmt(gettext("Hand %(hand)s (not finished)"), { hand: state.hand });
        return fmt(gettext("Hand %(hand)s"), { hand: state.finished ? state.hand : state.hand - 1 });
      },
      step(record, state, events) {
        const lines = [];
        let deal = [];
        const flushDeal = () => {
          if (deal.length) lines.push(fmt(gettext("Deal: %(cards)s."), { cards: deal.join(", ") }));
          deal = [];
        };
        for (const event of events) {
          if (!(event.type === "card" && event.how === "deal")) flushDeal();
          const line = this.event(record, event);
          if (event.type === "card" && event.how === "deal") {
            deal.push(`${seatName(record, event.seat)} ${cardName(event.card)}`);
          } else if (line) {
            lines.push(line);
          }
        }
        flushDeal();
        if (!events.some((event) => event.type === "hand_over")) {
          lines.push(fmt(gettext("The game ended during hand %(hand)s. Rows: %(rows)s."), {
            hand: state.hand,
            rows: state.rows.map((row, seat) => `${seatName(record, seat)} ${rowText(row)}`).join("; "),
          }));
        }
        return lines;
      },
      event(record, event) {
        const player = Number.isInteger(event.seat) ? seatName(record, event.seat) : "";
        const by = Number.isInteger(event.by) ? seatName(record, event.by) : "";
        switch (event.type) {
          case "hand":
            return fmt(gettext("Hand %(hand)s: %(player)s deals."), { hand: event.hand, player: seatName(record, event.dealer) });
          case "card":
            return event.how === "bellows"
              ? fmt(gettext("%(player)s draws %(card)s with the bellows."), { player, card: cardName(event.card) })
              : fmt(gettext("%(player)s draws %(card)s."), { player, card: cardName(event.card) });
          case "spilled":
            return fmt(gettext("%(player)s spills with a second %(number)s and scores 0 this hand."), { player, number: event.card });
          case "saved":
            return fmt(gettext("%(player)s's saucer catches a second %(number)s."), { player, number: event.card });
          case "stopped":
            return fmt(gettext("%(player)s stops with %(score)s points."), { player, score: event.score });
          case "snuffed":
            return fmt(gettext("%(by)s snuffs %(player)s, who stops with %(score)s points."), { by, player, score: event.score });
          case "bellows":
            return fmt(gettext("%(by)s works the bellows on %(player)s: three draws."), { by, player });
          case "saucer_given":
            return fmt(gettext("%(by)s gives the second saucer to %(player)s."), {
              by: seatName(record, event.from), player: seatName(record, event.to),
            });
          case "discarded":
            return fmt(gettext("%(player)s's %(card)s is discarded."), { player, card: cardName(event.card) });
          case "full":
            return fmt(gettext("%(player)s fills the pot: 15 more points."), { player });
          case "reshuffled":
            return fmt(ngettext("The discard pile is shuffled into a new deck of %(count)s card.",
              "The discard pile is shuffled into a new deck of %(count)s cards.", event.count), { count: event.count });
          case "hand_over":
            return fmt(gettext("Scores of hand %(hand)s: %(scores)s. Totals: %(totals)s."), {
              hand: event.hand, scores: scoresText(record, event.scores), totals: scoresText(record, event.totals),
            });
          default:
            return null;
        }
      },
      illegalReasons() {
        return {
          not_your_turn: gettext("it was another seat's decision"),
          not_a_target: gettext("that seat could not be chosen for this card"),
        };
      },
      ranking(record, ranking) {
        return ranking.map((row) => fmt(ngettext("Place %(place)s: %(player)s, %(points)s point",
          "Place %(place)s: %(player)s, %(points)s points", row.score), {
          place: row.place, player: seatName(record, row.seat), points: row.score,
        }));
      },
    };
  };
})(typeof window !== "undefined" ? window : globalThis);
