import type { Metadata } from "next";
import { Fragment } from "react";
import { buildReference, type Body, type Field } from "@/lib/api/reference";
import { OPENAPI_PATH } from "@/lib/docs/pages";
import { CodeBlock } from "../_components/code-block";

export const metadata: Metadata = { title: "API reference · Bank Connect partner documentation" };

/*
 * The reference is rendered here, on the server, from the OpenAPI document
 * rather than by a browser renderer. Redoc (the candidate that bundles for
 * self-hosting) was tried under the pages' Content-Security-Policy: it sets
 * inline styles the policy refuses without 'unsafe-inline' and loads its logo
 * from a CDN. Rendering in React keeps the strict policy, needs no script,
 * works without JavaScript and shares the docs' own components.
 */

function Fields({ fields, caption }: { fields: Field[]; caption: string }) {
  if (fields.length === 0) return null;
  return (
    <div className="table-scroll" tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr key={field.name}>
              <td>
                <code>{field.name}</code>
                {field.required ? <span className="muted"> required</span> : null}
              </td>
              <td>
                <code>{field.type}</code>
              </td>
              <td>{field.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BodyDetails({ body, caption }: { body: Body; caption: string }) {
  return (
    <>
      <p className="muted docs-vars">
        <code>{body.mediaType}</code>
        {body.schemaName ? (
          <>
            , schema <code>{body.schemaName}</code>
          </>
        ) : body.fields.length === 0 ? (
          <>
            , <code>{body.type}</code>
          </>
        ) : null}
      </p>
      <Fields fields={body.fields} caption={caption} />
      {body.example !== null ? <CodeBlock code={body.example} /> : null}
    </>
  );
}

export default function ReferencePage() {
  const groups = buildReference();
  return (
    <div className="docs-reference">
      <h1>API reference</h1>
      <p>
        Every endpoint with its parameters, bodies, answers and examples, generated from the OpenAPI
        3.1 document at <a href={OPENAPI_PATH}>{OPENAPI_PATH}</a>. The guides on the other pages say
        when to call what.
      </p>
      <nav aria-label="Endpoints" className="reference-toc">
        {groups.map((group) => (
          <Fragment key={group.id}>
            <p>
              <a href={`#${group.id}`}>{group.title}</a>
            </p>
            <ul>
              {group.operations.map((operation) => (
                <li key={operation.id}>
                  <a href={`#${operation.id}`}>
                    <span className="method">{operation.method}</span> <code>{operation.path}</code>
                  </a>
                </li>
              ))}
            </ul>
          </Fragment>
        ))}
      </nav>
      {groups.map((group) => (
        <section key={group.id} aria-labelledby={group.id}>
          <h2 id={group.id}>{group.title}</h2>
          {group.operations.map((operation) => (
            <section
              key={operation.id}
              className="reference-operation"
              aria-labelledby={operation.id}
              data-operation={`${operation.method} ${operation.path}`}
            >
              <h3 id={operation.id}>
                <span className="method">{operation.method}</span> <code>{operation.path}</code>
              </h3>
              <p>{operation.summary}</p>
              {operation.aliases.map((alias) => (
                <p key={alias} className="docs-vars" data-alias={`${operation.method} ${alias}`}>
                  Also served at{" "}
                  <code>
                    {operation.method} {alias}
                  </code>{" "}
                  <span className="muted">(an alias: the same operation, rules and answers)</span>
                </p>
              ))}
              {operation.auth.length > 0 ? (
                <p className="docs-vars">
                  <strong>Authentication:</strong> {operation.auth.join(", or ")}
                </p>
              ) : null}
              {operation.parameters.length > 0 ? (
                <>
                  <h4>Parameters</h4>
                  <Fields
                    caption={`Parameters of ${operation.method} ${operation.path}`}
                    fields={operation.parameters.map((parameter) => ({
                      ...parameter,
                      name: `${parameter.name} (${parameter.in})`,
                    }))}
                  />
                </>
              ) : null}
              {operation.request ? (
                <>
                  <h4>Request body</h4>
                  <BodyDetails
                    body={operation.request}
                    caption={`Request body of ${operation.method} ${operation.path}`}
                  />
                </>
              ) : null}
              <h4>Responses</h4>
              <ul className="reference-responses">
                {operation.responses.map((response) => (
                  <li key={response.status}>
                    {response.body && response.status.startsWith("2") ? (
                      <>
                        <p>
                          <strong>{response.status}</strong> {response.description}
                        </p>
                        <BodyDetails
                          body={response.body}
                          caption={`${response.status} answer of ${operation.method} ${operation.path}`}
                        />
                      </>
                    ) : response.body ? (
                      <details>
                        <summary>
                          <strong>{response.status}</strong> {response.description}
                        </summary>
                        <BodyDetails
                          body={response.body}
                          caption={`${response.status} answer of ${operation.method} ${operation.path}`}
                        />
                      </details>
                    ) : (
                      <p>
                        <strong>{response.status}</strong> {response.description}
                      </p>
                    )}
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </section>
      ))}
    </div>
  );
}
