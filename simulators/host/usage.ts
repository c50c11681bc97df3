// The simulators' lines of `cardlink help`, apart from their commands so that help loads none of them.
export const SIMULATOR_USAGE = `  simulate --scheme visa|mastercard|amex --seed N --count N --out FILE
           [--cards N] [--merchants N] [--start ISO] [--gap SECONDS]
                            dry run: the native messages the simulator would publish, one JSON per line
  simulator --scheme visa|mastercard|amex
                            run one scheme simulator on Kafka, with a store of its own: SIMULATOR_DATABASE_URL,
                            else PGlite in DATA_DIR/simulators/<scheme> (it never opens DATABASE_URL)
  faults get|clear --scheme S [--url URL]
  faults set --scheme S [--latency-ms N] [--drop-rate R] [--duplicate-rate R] [--clearing-before-auth-rate R]
           [--onboarding-failure-rate R] [--lookup-error-rate R] [--lookup-error-code CODE] [--url URL]
                            read, change or remove a simulated network's faults (through /admin)
  traffic start --rate R --seed N [--duration SECONDS] [--schemes visa,amex] [--program ID] [--url URL]
  traffic stop|status [--url URL]
                            generated traffic: start, stop, and what it sent (through /admin)
`;
