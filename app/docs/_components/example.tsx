import { EXAMPLES, exampleSource, SHELL_VARIABLES, type ExampleKey } from "@/lib/docs/examples";

/** One copy-paste example, rendered from the same source the e2e test runs. */
export function Example({ name }: { name: ExampleKey }) {
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
        <p className="muted docs-vars">
          Uses{" "}
          {example.variables.map((variable, index) => (
            <span key={variable}>
              {index > 0 ? ", " : ""}
              <code title={SHELL_VARIABLES[variable]}>${variable}</code>
            </span>
          ))}
          .
        </p>
      ) : (
        <p className="muted docs-vars">
          <code>lib/docs/examples/{example.file}</code>
        </p>
      )}
      <pre tabIndex={0}>
        <code>{exampleSource(example)}</code>
      </pre>
    </figure>
  );
}
