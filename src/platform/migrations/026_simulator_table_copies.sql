-- The simulated networks' tables are the simulators' own, made by their migrations
-- (simulators/host/migrations). A database of older releases may hold copies that the service's migrations
-- made (simulator_merchants, _purchases, _messages, _due, _faults, _traffic, _cards), and the service
-- reads none of them. Where the simulators keep their store in this database (`npm start`: their
-- simulator_schema_migrations is here) those tables are theirs and stay; elsewhere, copies without a row
-- are dropped, and copies holding rows stay as they are, since they can only be the simulators' data.
-- The simulators' migration lock is held meanwhile, so a simulator process that opens this database as its
-- store at the same moment migrates either before (and its tables stay) or after (and makes them again).
do $$
declare
  copies text[] := array['simulator_messages', 'simulator_purchases', 'simulator_due', 'simulator_merchants',
                         'simulator_cards', 'simulator_faults', 'simulator_traffic'];
  leftover text;
  holds_rows boolean;
begin
  perform pg_advisory_xact_lock(7041991);
  if to_regclass('simulator_schema_migrations') is not null then
    return;
  end if;
  foreach leftover in array copies loop
    if to_regclass(leftover) is not null then
      execute format('select exists (select 1 from %I)', leftover) into holds_rows;
      if holds_rows then
        return;
      end if;
    end if;
  end loop;
  foreach leftover in array copies loop
    execute format('drop table if exists %I', leftover);
  end loop;
end
$$;
