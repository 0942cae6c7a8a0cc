import Link from "next/link";
import { CodeBlock } from "../_components/code-block";

/** For whoever runs the service: the three ways a partner comes to exist. */
export default function CreatingPartnersPage() {
  return (
    <>
      <h1>How a partner gets created</h1>
      <p>
        This page is for whoever runs Bank Connect. A partner is the company whose app sends users
        through the hosted flow; it has one or more owners (people who sign in to the{" "}
        <a href="/dashboard">dashboard</a>) and Connect clients (a <code>client_id</code>{" "}
        <code>obc_…</code> with its secret and redirect URIs). A partner comes to exist in one of
        two ways: the operator creates it with the command line, or, where the service allows it, a
        person signs up for one in the dashboard.
      </p>

      <h2>With the operator&apos;s command line</h2>
      <p>
        Run the admin commands where the service&apos;s settings are set: they open the same
        database. Each prints its result as JSON; <code>npm run admin -- help</code> lists every
        command and <code>npm run admin -- help partner create</code> shows one command&apos;s
        options.
      </p>
      <CodeBlock
        code={`npm run admin -- partner create --name "Budget Buddy ApS" --owner-email owner@budgetbuddy.example`}
      />
      <p>
        The owner&apos;s user is created if the email is new. The answer carries the partner&apos;s
        id, which the next commands take as <code>--partner</code>. A first Connect client, its
        secret printed only this once:
      </p>
      <CodeBlock
        code={`npm run admin -- client create --partner <partner-id> \\
  --redirect-uri https://app.budgetbuddy.example/callback --name "Budget Buddy web"`}
      />
      <p>Other commands an operator uses for partners:</p>
      <CodeBlock
        code={`npm run admin -- partner add-owner --partner <partner-id> --email colleague@budgetbuddy.example
npm run admin -- partner set-domain --partner <partner-id> --domain budgetbuddy.example
npm run admin -- partner list
npm run admin -- client list --partner <partner-id>
npm run admin -- client rotate-secret --client <client-id>
npm run admin -- partner suspend --partner <partner-id>
npm run admin -- partner resume --partner <partner-id>`}
      />
      <p>
        <code>set-domain</code> pins the registered domain that the partner&apos;s support, terms
        and privacy links must sit under. A suspended partner&apos;s authorizations and API keys are
        refused until it is resumed (see <Link href="/docs/errors">errors and limits</Link>). Each
        of these changes is recorded in the partner&apos;s security log.
      </p>

      <h2>In the dashboard</h2>
      <p>
        An owner signs in at <a href="/dashboard">/dashboard</a> with the same emailed link or
        six-digit code as the hosted flow. There the owner creates and renames Connect clients,
        rotates their secrets (the previous secret keeps working for 24 hours), sets the branding
        and logo the flow shows, installs a <Link href="/docs/recipient-keys">recipient key</Link>{" "}
        and reads the security log. Someone who owns several partners picks one first. A person who
        signs in without owning a partner is told to ask the operator, unless self-signup is on.
      </p>

      <h2>Self-signup: PARTNER_SELF_SIGNUP</h2>
      <p>
        The setting <code>PARTNER_SELF_SIGNUP</code> decides whether a signed-in person who owns no
        partner may create one in the dashboard, becoming its owner. It is on by default in
        development, so a local installation can be tried end to end, and off by default in
        production, where partners are created by the operator. Set it explicitly to change that:
      </p>
      <CodeBlock
        code={`PARTNER_SELF_SIGNUP=false   # only the operator creates partners\nPARTNER_SELF_SIGNUP=true    # anyone who can sign in may create a partner`}
      />
      <p>
        With self-signup on in production, anyone with a working email address can become a partner
        and send users through the flow under their own branding; the operator can still suspend a
        partner with the command line.
      </p>
      <p>
        No partner can sign up under, or set as its display name, a name that looks like another
        partner&apos;s: names are stored in Unicode NFKC form with single spaces, a name holding an
        invisible character or a text-direction control (a zero-width space, a right-to-left
        override) is refused, and names are compared by their confusable skeleton (Unicode Technical
        Standard #39), so a Cyrillic &ldquo;а&rdquo; or a capital &ldquo;I&rdquo; for an
        &ldquo;l&rdquo; does not make a new name. A partner may always display its own name.
      </p>
    </>
  );
}
