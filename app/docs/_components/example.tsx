import {
  API_CALLS,
  apiCallOf,
  SDK_INSTALL,
  SDK_PACKAGE,
  type ApiCall,
} from "@/lib/docs/api-examples";
import {
  EXAMPLES,
  exampleSource,
  SHELL_VARIABLES,
  type ExampleKey,
  type ShellVariable,
} from "@/lib/docs/examples";
import { CodeBlock } from "./code-block";
import { CodeTabs } from "./code-tabs";

function Variables({ names }: { names: ShellVariable[] }) {
  return (
    <p className="muted docs-vars">
      Uses{" "}
      {names.map((variable, index) => (
        <span key={variable}>
          {index > 0 ? ", " : ""}
          <code title={SHELL_VARIABLES[variable]}>${variable}</code>
        </span>
      ))}
      .
    </p>
  );
}

/** Where the Node tab imports the SDK: its install command, on the quick start. */
function SdkNote() {
  return (
    <>
      Uses the <code>{SDK_PACKAGE}</code> SDK:{" "}
      <a href="/docs#install-the-sdk" data-sdk-install>
        install it with <code>{SDK_INSTALL}</code>
      </a>
    </>
  );
}

/** An API call in curl, Node and fetch, each rendered from the source the e2e test runs. */
function ApiCallExample({ call }: { call: ApiCall }) {
  const node = call.nodeExample ? EXAMPLES[call.nodeExample] : null;
  const nodeCode = node ? exampleSource(node) : (call.node ?? "");
  return (
    <figure className="docs-example" data-call={call.id} id={`example-${call.id}`}>
      <figcaption>
        <strong>{call.title}</strong>
      </figcaption>
      <Variables names={call.variables} />
      <CodeTabs
        label={call.title}
        panels={[
          { label: "curl", exampleId: call.id, code: exampleSource(EXAMPLES[call.curl]) },
          {
            label: "Node",
            exampleId: node ? node.id : `${call.id}-node`,
            code: nodeCode,
            note: nodeCode.includes(`from "${SDK_PACKAGE}"`) ? <SdkNote /> : undefined,
          },
          { label: "fetch", exampleId: `${call.id}-fetch`, code: call.fetch },
        ]}
      />
    </figure>
  );
}

/** One copy-paste example, rendered from the same source the e2e test runs. */
export function Example({ name }: { name: ExampleKey }) {
  const call = apiCallOf(name);
  if (call) return <ApiCallExample call={API_CALLS[call]} />;
  const example = EXAMPLES[name];
  return (
    <figure className="docs-example" data-example={example.id} id={`example-${example.id}`}>
      <figcaption>
        <strong>{example.title}</strong>{" "}
        <span className="muted">
          ({example.language === "sh" ? "shell" : "TypeScript, Node 20+"})
        </span>
      </figcaption>
      {example.language === "sh" ? (
        <Variables names={example.variables} />
      ) : (
        <p className="muted docs-vars">
          <code>lib/docs/examples/{example.file}</code>
        </p>
      )}
      <CodeBlock code={exampleSource(example)} />
    </figure>
  );
}
