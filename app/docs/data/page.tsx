import Link from "next/link";
import { Example } from "../_components/example";

export default function DataPage() {
  return (
    <>
      <h1>Data API</h1>
      <p>
        Every call carries the API key as <code>X-Api-Key</code> (or{" "}
        <code>Authorization: Bearer</code>) and reads only that key&apos;s user: another user&apos;s
        account id answers 404. Every response is JSON. Sensitive values (names, IBANs, amounts,
        counterparties, the account uid) are only in <Link href="/docs/envelopes">envelopes</Link> (
        <code>enc</code>, <code>…Enc</code> fields).
      </p>

      <h2>
        <code>GET /api/accounts</code>
      </h2>
      <p>
        An array of accounts: <code>id</code>, <code>aspspName</code>, <code>aspspCountry</code>,{" "}
        <code>currency</code>, <code>accountType</code>, <code>bic</code>,{" "}
        <code>needsReconnect</code>, <code>balances</code> (each <code>type</code> —{" "}
        <code>ITBD</code> booked, <code>ITAV</code> available —, <code>currency</code>,{" "}
        <code>referenceDate</code> and <code>enc</code> → <code>{"{amount, name}"}</code>),{" "}
        <code>enc</code> → <code>{"{ownerName, iban, bban, accountName, product}"}</code>,{" "}
        <code>displayNameEnc</code> → <code>{"{displayName}"}</code> and <code>uidEnc</code> →{" "}
        <code>{"{uid}"}</code>. When <code>needsReconnect</code> is true, do not sync the account:
        send the user through the flow with <code>renew_connection</code>.
      </p>
      <p>
        <strong>Balances</strong> are those of the account&apos;s last read from its bank, every one
        it reported, ordered by <code>type</code> and, within a type, as the bank listed them. A
        type may come more than once: some banks report two <code>ITAV</code> balances from
        different sources (say, one for card payments), told apart by their sealed <code>name</code>{" "}
        and their <code>referenceDate</code>, so do not key a balance by its <code>type</code>{" "}
        alone. A balance the bank no longer reports is gone after the next sync.
      </p>
      <p>
        <strong>A withdrawn consent</strong> (the user or the bank ended it) is not something a
        renewal can undo, so its accounts keep <code>needsReconnect</code> false: do not prompt the
        user to reconnect them. Their connection in <code>GET /api/connections</code> shows{" "}
        <code>status</code> <code>&quot;Withdrawn&quot;</code> and <code>isLive</code> false. A sync
        of such an account answers 409 <code>consent_withdrawn</code>, and a bulk sync leaves it out
        of <code>failures</code>. To read that bank again, the user connects it anew.
      </p>
      <p>
        Without parameters you get every account, as the SDKs expect. With <code>limit</code> (1 to
        500) you get one page instead, <code>{"{items, next}"}</code>; pass <code>next</code> back
        as <code>cursor</code> for the page after it, until <code>next</code> is <code>null</code>.
      </p>
      <Example name="accounts" />

      <h2>
        <code>GET /api/accounts/{"{id}"}/transactions</code>
      </h2>
      <p>
        One page of the statement, newest first (entries still pending, without a booking date,
        first of all): <code>{"{items, total, next}"}</code>, where <code>total</code> counts every
        transaction matching the filter and <code>next</code> says where the following page starts,
        or is <code>null</code> on the last one. Query parameters, each at most once:
      </p>
      <ul>
        <li>
          <code>from</code>, <code>to</code>: <code>YYYY-MM-DD</code>, inclusive, on the booking
          date;
        </li>
        <li>
          <code>limit</code>: page size, default <strong>100</strong>, at most <strong>500</strong>;
        </li>
        <li>
          <code>offset</code>: rows to skip, default 0, at most <strong>100 000</strong>;
        </li>
        <li>
          <code>cursor</code>: the <code>next</code> of the page before, instead of{" "}
          <code>offset</code>. It keeps that page&apos;s <code>from</code> and <code>to</code> (you
          may repeat them, not change them).
        </li>
      </ul>
      <p>
        A bad or repeated parameter answers 400 naming it. To read everything, follow{" "}
        <code>next</code> (also sent as a <code>Link: &lt;…&gt;; rel=&quot;next&quot;</code> header)
        until it is <code>null</code>: every page then costs the same, however deep, and each
        transaction comes exactly once even while syncs add new ones (they arrive at the top). On
        those pages <code>total</code> is the count when the first page was read. Paging by{" "}
        <code>offset</code> (<code>offset += items.length</code> until you have <code>total</code>{" "}
        items or a page comes back empty) works too, up to 100 000 rows deep; a deeper offset
        answers 400 pointing to the cursor (see <a href="#paging">paging</a> below). Each item has{" "}
        <code>id</code>, <code>currency</code>, <code>creditDebitIndicator</code> (<code>CRDT</code>
        /<code>DBIT</code>; the sealed amount is unsigned), <code>status</code>,{" "}
        <code>bookingDate</code>, <code>valueDate</code>, <code>transactionDate</code>,{" "}
        <code>bankTransactionCode</code> and <code>enc</code> →{" "}
        <code>
          {
            "{amount, creditorName, creditorIban, debtorName, debtorIban, remittanceInformation, balanceAfter, …}"
          }
        </code>
        . Amounts are decimal strings.
      </p>
      <p>
        <strong>What the bank sent, whole.</strong> <code>bankTransactionCode</code> holds only the
        bank&apos;s codes, ISO 20022 <code>DOMAIN-FAMILY-SUBFAMILY</code> or the parts of it the
        bank gives (e.g. <code>CCRD-POSD</code>). The bank&apos;s own words for it (Enable
        Banking&apos;s <code>description</code>, e.g. &quot;Card purchase&quot;) are sealed, in the
        envelope&apos;s <code>rawJson</code>: the bank&apos;s JSON of the transaction exactly as it
        was sent, every field the payload has no key for included. A field the bank sent in a shape
        it should not have (an exchange rate that is not a number, a counterparty name that is not
        text) is <code>null</code> in the envelope rather than guessed, and the transaction is
        stored all the same; <code>rawJson</code> still has the bank&apos;s value.{" "}
        <code>exchangeRate</code> is always a decimal string or <code>null</code>.
      </p>
      <Example name="transactions" />
      <Example name="transactionsNext" />
      <p>
        <strong>Right after the user connects a bank</strong>, the accounts and balances are stored
        first and the older history a few seconds later, so your callback may arrive before it is
        complete. Until an account&apos;s history is stored whole, this endpoint answers{" "}
        <code>503</code> <code>{'{"status":503,"reason":"transient"}'}</code> with{" "}
        <code>Retry-After: 5</code>: wait that many seconds and ask again. You never get part of the
        first history. If storing it failed, the answer stays the same until the account&apos;s next{" "}
        <Link href="/docs/sync">sync</Link>, which fetches that history again and completes it.{" "}
        <code>GET /api/accounts</code> lists the account (with its balances) meanwhile.
      </p>

      <h2 id="pending">Pending transactions, and keeping your own copy</h2>
      <p>
        A transaction with <code>status</code> <code>PDNG</code> is one the bank reports as not
        booked yet: a card payment the merchant has not settled, an authorization such as a
        hotel&apos;s deposit, a transfer still on its way. It has no <code>bookingDate</code> and
        comes first in the list. The bank&apos;s current list of pending transactions is the truth,
        and every sync brings the account in line with it:
      </p>
      <ul>
        <li>
          <strong>When it books</strong>, the transaction keeps its <code>id</code>: its{" "}
          <code>status</code> becomes <code>BOOK</code>, it gets its <code>bookingDate</code> and{" "}
          <code>valueDate</code> (so it moves down the list to that date), and its sealed amount may
          change: a tip added to a restaurant bill, a payment abroad converted at the booking
          day&apos;s rate. The service recognizes the booked entry as the same payment by its
          counterparty, currency and direction within 35 days; when it cannot (a bank that renames
          the merchant when it books), the pending transaction is removed and the booked one appears
          with a new <code>id</code>. Either way the account holds that payment exactly once.
        </li>
        <li>
          <strong>When it disappears</strong> from the bank&apos;s list (an authorization released,
          a payment cancelled), it is removed: its <code>id</code> is no longer listed.
        </li>
        <li>
          <strong>A booked transaction never changes</strong>: not its <code>id</code>, not its
          fields, not its envelope. A transaction the bank books late, dated days back, is added at
          its date.
        </li>
      </ul>
      <p>
        <strong>If you keep your own copy</strong>, treat the list as the truth and reconcile after
        each sync: read from the top without <code>from</code> (the pending transactions come first)
        and go on until you reach booked transactions dated more than 35 days before your previous
        read. Then every <code>id</code> you hold as pending and did not see again is gone; delete
        it. Every <code>id</code> you see, replace in your copy with what you read (the booked
        version of a pending one has the same <code>id</code>). Ids you did not have are new. Keep
        nothing keyed by the amount or the date of a pending transaction: both may change when it
        books.
      </p>
      <p>
        <strong>Try it before going live</strong> with the sandbox bank{" "}
        <em>Sandbox Scenario DK: pending card payments</em> (under the test scenarios of the bank
        list, for personal accounts). By the real clock, every card payment made today is pending
        and books a day or two later: each day a restaurant bill that books with a tip added and a
        grocery purchase that books for the same amount, both made the day before, and a
        hotel&apos;s deposit that stays pending for two days and is then released without booking.
        Its available balance is the booked one less the pending payments. Connect it in the
        sandbox, sync and reconcile today, then again tomorrow and the day after: the bill and the
        groceries keep their <code>id</code>s as they book, the bill for more than it was
        authorized, the deposit&apos;s <code>id</code> is gone, and nothing appears twice.
      </p>

      <h2 id="paging">Paging: cursor or offset</h2>
      <p>
        A cursor names the last transaction of its page; the next page is read from the index right
        after it, so page 10 000 takes as long as page 1. An offset has to step over every row
        before it, so its cost grows with its depth: that is why offsets stop at 100 000, far past
        two years of even a busy shop&apos;s account. <code>total</code> costs nothing without a
        filter (the service keeps each account&apos;s count); with <code>from</code> or{" "}
        <code>to</code>, the matching range is counted on the first page and carried by the cursor
        to the following ones, while offset pages count it again each time.
      </p>

      <h2>
        <code>GET /api/connections</code>
      </h2>
      <p>
        The user&apos;s bank consents: <code>sessionId</code> (use it as{" "}
        <code>renew_connection</code>), <code>aspspName</code>, <code>aspspCountry</code>,{" "}
        <code>validUntil</code>, <code>status</code>, <code>isLive</code> (whether the consent still
        works, by the service&apos;s clock: trust it over your own), <code>accountCount</code>,{" "}
        <code>lastSyncedAt</code>, <code>psuType</code> and <code>accountIds</code>.{" "}
        <code>status</code> is <code>Active</code>, <code>Expired</code> (renew it with{" "}
        <code>renew_connection</code>) or <code>Withdrawn</code> (the consent was withdrawn: a
        renewal cannot help).
      </p>
      <Example name="connections" />
      <p>
        Data is refreshed with <Link href="/docs/sync">sync</Link>. Every other <code>/api</code>{" "}
        path answers 403 <code>insufficient_scope</code> to an API key. The full schemas are in{" "}
        <a href="/openapi.json">/openapi.json</a>.
      </p>
    </>
  );
}
