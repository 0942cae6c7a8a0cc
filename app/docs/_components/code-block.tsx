import { CopyButton } from "./copy-button";

/** A code example: scrolls sideways inside itself, with a copy button in its corner. */
export function CodeBlock({ code }: { code: string }) {
  return (
    <div className="code-block">
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} />
    </div>
  );
}
