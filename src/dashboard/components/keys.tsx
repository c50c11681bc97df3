// A new environment's secret keys (a new account's, a new sandbox's), shown on the page that made them,
// once: they are never put in a cookie or a URL.
export const KeysShownOnce = ({ keys }: { keys: { test: string; live: string } }) => (
  <dl class="facts">
    <dt>Test key</dt>
    <dd>
      <code class="secret">{keys.test}</code>
    </dd>
    <dt>Live key</dt>
    <dd>
      <code class="secret">{keys.live}</code>
    </dd>
  </dl>
);
