// The sign-in page: an API key (test or live) for the program pages, or the admin token for the
// operator pages. The key is checked once and never kept: the session names it by id.
import { DOCTYPE, HeadBasics } from "../layout.tsx";
export const signInPage = (serviceName: string, error?: string) => (
  <>
    {DOCTYPE}
  <html lang="en">
    <head>
      <HeadBasics />
      <title>{`Sign in · ${serviceName} dashboard`}</title>
    </head>
    <body>
      <main id="main" class="narrow">
        <h1>{serviceName} dashboard</h1>
        <p>
          Sign in with a secret API key — <code>sk_test_…</code> for the test environment, <code>sk_live_…</code> for live —
          or with the admin token for the operator pages. <code>npm start</code> prints both.
        </p>
        {error && (
          <p class="flash flash-error" role="alert">
            {error}
          </p>
        )}
        <form method="post" action="/dashboard/sign-in">
          <div class="field">
            <label for="secret">API key or admin token</label>
            <input id="secret" name="secret" type="password" autocomplete="off" required autofocus />
          </div>
          <button type="submit">Sign in</button>
        </form>
        <p>
          <a href="/docs">API docs</a>
        </p>
      </main>
    </body>
  </html>
  </>
);
