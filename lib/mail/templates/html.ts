import { escapeHtml } from "../../http/html";

/**
 * The HTML every mail shares: a document in the mail's language, inline
 * styles only (mail clients drop style sheets), one readable column. `main`
 * is HTML whose every interpolated value the caller has escaped.
 */
export function mailDocument(input: { locale: string; title: string; main: string }): string {
  return `<!doctype html>
<html lang="${escapeHtml(input.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
</head>
<body style="margin:0;padding:24px;background:#ffffff;color:#1a1a1a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:16px;line-height:1.5">
<main style="max-width:560px;margin:0 auto">
${input.main}
</main>
</body>
</html>
`;
}

/** The call to action as a button, and the address as text for clients that hide links. */
export function mailButton(href: string, label: string): string {
  const link = escapeHtml(href);
  return `<p><a href="${link}" style="display:inline-block;padding:12px 20px;background:#1a4fd6;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>
<p style="font-size:14px;word-break:break-all"><a href="${link}" style="color:#1a4fd6">${link}</a></p>`;
}

/**
 * A part of a mail: a paragraph, a quieter closing paragraph, a value set
 * apart (an address the person should recognise), or the call to action.
 */
export type MailBlock =
  string | { note: string } | { code: string } | { link: string; label: string };

/**
 * A mail made of blocks, as plain text (each block a paragraph, the call to
 * action as its bare address) and as HTML (escaped, the call to action as a
 * button), so the two parts always say the same.
 */
export function composeMail(
  locale: string,
  subject: string,
  blocks: readonly MailBlock[],
): { subject: string; text: string; html: string } {
  const text = blocks.map((block) => {
    if (typeof block === "string") return block;
    if ("note" in block) return block.note;
    if ("code" in block) return block.code;
    return block.link;
  });
  const main = blocks.map((block) => {
    if (typeof block === "string") return `<p>${escapeHtml(block)}</p>`;
    if ("note" in block) return `<p style="color:#4a4a4a">${escapeHtml(block.note)}</p>`;
    if ("code" in block) return `<p><code>${escapeHtml(block.code)}</code></p>`;
    return mailButton(block.link, block.label);
  });
  return {
    subject,
    text: `${text.join("\n\n")}\n`,
    html: mailDocument({ locale, title: subject, main: main.join("\n") }),
  };
}
