/* How the verifier words a trails game: who starts, each turn's throws, climbs, camp or fall, and the
   ranking (see static/js/verify.js). One step is one turn: it ends when the next turn starts or someone wins. */
(function (root) {
  "use strict";

  const LENGTHS = [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3];

  root.WickwiseVerifyPresenters = root.WickwiseVerifyPresenters || {};
  root.WickwiseVerifyPresenters.trails = function ({ gettext, ngettext, fmt, seatName }) {
    const climbWords = (trails) => {
      if (trails.length === 2 && trails[0] === trails[1]) {
        return fmt(gettext("trail %(trail)s two steps"), { trail: trails[0] });
      }
      if (trails.length === 2) return fmt(gettext("trails %(a)s and %(b)s"), { a: trails[0], b: trails[1] });
      return fmt(gettext("trail %(trail)s"), { trail: trails[0] });
    };

    return {
      deal(record, state) {
        return [fmt(gettext("%(player)s starts (drawn from the stream “first”)."), {
          player: seatName(record, state.first),
        })];
      },
      stepDone(events) {
        return events.some((event) => event.type === "turn" || event.type === "won");
      },
      stepTitle(state, done) {
        if (!done) return fmt(gettext("Turn %(turn)s (not finished)"), { turn: state.turn });
        return fmt(gettext("Turn %(turn)s"), { turn: state.finished ? state.turn : state.turn - 1 });
      },
      step(record, state, events) {
        const lines = [];
        const name = (seat) => seatName(record, seat);
        for (let i = 0; i < events.length; i += 1) {
          const event = events[i];
          if (event.type === "thrown") {
            const values = { player: name(event.seat), dice: event.dice.join(" ") };
            const next = events[i + 1];
            if (event.busted) {
              lines.push(fmt(gettext("%(player)s throws %(dice)s: no pairing can climb, and loses their balance; "
                + "the lanterns go."), values));
            } else if (next && next.type === "climbed") {
              lines.push(fmt(gettext("%(player)s throws %(dice)s and climbs %(climb)s."), {
                ...values, climb: climbWords(next.trails),
              }));
              next.topped.forEach((trail) => lines.push(
                fmt(gettext("A lantern reaches the summit of trail %(trail)s."), { trail })));
              i += 1;
            } else {
              lines.push(fmt(gettext("%(player)s throws %(dice)s."), values));
            }
          } else if (event.type === "camped") {
            const places = [];
            event.banners.forEach((step, index) => {
              if (step) {
                places.push(fmt(gettext("%(trail)s at %(step)s/%(steps)s"), { trail: index + 2, step, steps: LENGTHS[index] }));
              }
            });
            lines.push(fmt(gettext("%(player)s makes camp. Banners: %(places)s."), {
              player: name(event.seat), places: places.join(", "),
            }));
            event.claimed.forEach((trail) => lines.push(fmt(gettext("%(player)s raises a landmark on trail %(trail)s."), {
              player: name(event.seat), trail,
            })));
            event.removed.forEach(([seat, trail]) => lines.push(
              fmt(gettext("%(player)s's banner leaves trail %(trail)s."), { player: name(seat), trail })));
          } else if (event.type === "won") {
            lines.push(fmt(gettext("%(player)s has three landmarks and wins."), { player: name(event.seat) }));
          }
        }
        if (!events.length) lines.push(gettext("No throw was made in this turn before the game ended."));
        const counts = Array.from({ length: state.seats }, (_, seat) => state.claimed.filter((owner) => owner === seat).length);
        lines.push(fmt(gettext("Landmarks so far: %(landmarks)s"), {
          landmarks: counts.map((count, seat) => `${name(seat)} ${count}`).join(", "),
        }));
        return lines;
      },
      illegalReasons() {
        return {
          not_your_turn: gettext("it was another seat's turn"),
          wrong_phase: gettext("that move was not possible at that moment of the turn"),
          not_a_choice: gettext("those trails were not one of the tray's choices"),
        };
      },
      ranking(record, ranking) {
        return ranking.map((row) => fmt(ngettext(
          "Place %(place)s: %(player)s, %(landmarks)s landmark, progress %(progress)s",
          "Place %(place)s: %(player)s, %(landmarks)s landmarks, progress %(progress)s", row.score), {
          place: row.place, player: seatName(record, row.seat), landmarks: row.score,
          progress: Number(row.progress).toFixed(2),
        }));
      },
    };
  };
})(typeof window !== "undefined" ? window : globalThis);
