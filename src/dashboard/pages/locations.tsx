// Locations: each location's status per scheme (Idle, Syncing, Active, Not found with its case) and
// MIDs per scheme; adding and deleting locations; starting the program's sync with the networks (live).
import type { Hono } from "hono";
import { SCHEMES } from "../../domain/card-number.ts";
import { callApi, must, qs, type DashContext, type DashEnv, type List, type RouteContext } from "../context.ts";
import { afterAction } from "../actions.ts";
import { checked, compact, readForm, text } from "../form.ts";
import { ActionButton, Badge, Field, Layout, Pager, Select, Table, type Options } from "../layout.tsx";
import { StatusBadge } from "../statuses.tsx";
import { NoProgram, programsOf } from "../programs.tsx";
import type { Location, Program } from "../../services/catalog/index.ts";

const midText = (m: object) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

export function mountLocations(dash: Hono<DashEnv>) {
  dash.get("/locations", listLocations);
  dash.post("/locations", addLocation);
  dash.post("/locations/sync", syncLocations);
  dash.post("/locations/:id/delete", deleteLocation);
}

async function listLocations(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="Locations">{NoProgram()}</Layout>);
  const start = c.req.query("start");
  const brandId = c.req.query("brandId");
  const [list, brands] = await Promise.all([
    callApi<List<Location>>(c, "GET", `/v1/programs/${program.id}/locations${qs({ brandId, start, limit: 50 })}`),
    callApi<List<{ id: string; name: string }>>(c, "GET", "/v1/brands?limit=100"),
  ]);
  const locations = must(list);
  const brandOptions = must(brands).items.map((b) => [b.id, b.name] as const);
  return c.html(<LocationsPage c={c} programs={programs} program={program} brandId={brandId} locations={locations} brandOptions={brandOptions} />);
}

async function addLocation(c: DashContext) {
  const program = c.req.query("program") ?? "";
  const f = await readForm(c);
  const body = compact({
    brandId: text(f, "brandId"),
    address: text(f, "address"),
    postcode: text(f, "postcode"),
    city: text(f, "city"),
    countryCode: text(f, "countryCode"),
    status: checked(f, "status") ? "syncing" : undefined,
  });
  const result = await callApi(c, "POST", `/v1/programs/${encodeURIComponent(program)}/locations`, body);
  return afterAction(c, result, "Location added.", `/dashboard/locations${qs({ program })}`);
}

async function syncLocations(c: DashContext) {
  const f = await readForm(c);
  const program = text(f, "program") ?? "";
  const result = await callApi(c, "PATCH", `/v1/programs/${encodeURIComponent(program)}`, { status: "syncing" });
  return afterAction(c, result, "Sync started: idle locations are being onboarded with the networks.", `/dashboard/locations${qs({ program })}`);
}

async function deleteLocation(c: RouteContext<"/locations/:id/delete">) {
  const f = await readForm(c);
  const result = await callApi(c, "DELETE", `/v1/locations/${encodeURIComponent(c.req.param("id"))}`);
  return afterAction(c, result, "Location deleted.", `/dashboard/locations${qs({ program: text(f, "program") })}`);
}

interface LocationsProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  /** The brand the list is filtered by. */
  brandId: string | undefined;
  locations: List<Location>;
  brandOptions: Options;
}

function LocationsPage({ c, programs, program, brandId, locations, brandOptions }: LocationsProps) {
  const brandName = new Map(brandOptions);
  return (
    <Layout c={c} title="Locations" program={program} programs={programs}>
      <form method="get" action="/dashboard/locations" class="filters">
        <input type="hidden" name="program" value={program.id} />
        <Select name="brandId" label="Brand" options={[["", "Any brand"], ...brandOptions]} value={brandId} />
        <button type="submit">Filter</button>
      </form>
      {program.live ? (
        <div class="actions">
          <span>
            Sync with the networks: <Badge text={program.status === "syncing" ? "Syncing" : "Idle"} />
          </span>
          <ActionButton action={`/dashboard/locations/sync`} label="Start the program's sync" fields={{ program: program.id }} />
        </div>
      ) : (
        <p class="hint">Test environment: locations are onboarded at once; the sync with the networks is for live programs.</p>
      )}
      <Table caption="Locations and their status per scheme" head={["Location", "Brand", ...SCHEMES.map((s) => s[0]!.toUpperCase() + s.slice(1)), ""]} empty="No locations yet: add one below.">
        {locations.items.map((l) => (
          <LocationRow l={l} brand={brandName.get(l.brandId) ?? l.brandId} program={program} />
        ))}
      </Table>
      <Pager count={locations.count} shown={locations.items.length} last={locations.last} next={(s) => `/dashboard/locations${qs({ program: program.id, brandId, start: s })}`} />
      <NewLocation program={program} brandOptions={brandOptions} />
    </Layout>
  );
}

/** A location with its status on each scheme: the case when not found, and the MIDs the network gave it. */
const LocationRow = ({ l, brand, program }: { l: Location; brand: string; program: Program }) => (
  <tr>
    <td>
      {l.address}, {l.postcode} {l.city}, {l.countryCode}
    </td>
    <td>{brand}</td>
    {SCHEMES.map((s) => {
      const st = l.status[s];
      return (
        <td>
          <StatusBadge status={st.status} />
          {st.case && (
            <small class="case">
              Case {st.case.id}: {st.case.reason}
            </small>
          )}
          {st.mids.length > 0 && (
            <ul class="mids">
              {st.mids.map((m) => (
                <li>{midText(m)}</li>
              ))}
            </ul>
          )}
        </td>
      );
    })}
    <td>
      <ActionButton action={`/dashboard/locations/${l.id}/delete`} label="Delete" danger fields={{ program: program.id }} />
    </td>
  </tr>
);

const NewLocation = ({ program, brandOptions }: { program: Program; brandOptions: Options }) => (
  <section aria-labelledby="new-location">
    <h2 id="new-location">Add a location</h2>
    {brandOptions.length === 0 ? (
      <p>
        Add a brand first (on the <a href={`/dashboard/offers/new${qs({ program: program.id })}`}>create an offer</a> page).
      </p>
    ) : (
      <form method="post" action={`/dashboard/locations${qs({ program: program.id })}`} class="grid">
        <Select name="brandId" id="loc-brand" label="Brand" options={brandOptions} hint="Its consent must be approved (at once in test)." />
        <Field name="address" label="Address" required />
        <Field name="postcode" label="Postcode" required />
        <Field name="city" label="City" required />
        <Field name="countryCode" id="loc-country" label="Country (ISO alpha-3)" required value="GBR" />
        {program.live && (
          <div class="field">
            <input id="loc-syncing" name="status" type="checkbox" value="syncing" />
            <label for="loc-syncing">Start syncing it with the networks now</label>
          </div>
        )}
        <div class="actions">
          <button type="submit">Add location</button>
        </div>
      </form>
    )}
  </section>
);
