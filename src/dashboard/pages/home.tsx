// The front door at /: where to go from `http://localhost:3000/`, the dashboard or the API docs.
import { DOCTYPE, HeadBasics } from "../layout.tsx";

export const homePage = (name: string) => (
  <>
    {DOCTYPE}
  <html lang="en">
    <head>
      <HeadBasics />
      <title>{name}</title>
    </head>
    <body>
      <main id="main" class="narrow">
        <h1>{name}</h1>
        <p>A card-linking service and the Visa, Mastercard and Amex networks behind it, simulated.</p>
        <ul class="doors">
          <li>
            <a href="/dashboard">Dashboard</a> — sign in with the test key <code>npm start</code> printed, and follow a
            transaction from purchase to delivered webhook.
          </li>
          <li>
            <a href="/docs">API docs</a> — every route of <code>/v1</code>, with its rules and examples (
            <a href="/v1/openapi.json">OpenAPI 3.1</a>).
          </li>
        </ul>
      </main>
    </body>
  </html>
  </>
);
