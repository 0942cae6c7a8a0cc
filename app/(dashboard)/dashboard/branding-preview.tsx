"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import { readableTextOn } from "@/lib/partners/contrast";
import { isHexColor } from "@/lib/partners/branding-rules";

/**
 * The consent screen as a user would see it with these values (colours set
 * through CSSOM: the CSP forbids style attributes).
 */
export function BrandingPreview(props: {
  displayName: string;
  fallbackName: string;
  accentColor: string;
  purpose: string;
  logo: string | null;
}) {
  const t = useTranslations("Dashboard");
  const consent = useTranslations("Consent");
  const ref = useRef<HTMLElement>(null);
  const name = props.displayName.trim() || props.fallbackName;
  const accent = isHexColor(props.accentColor) ? props.accentColor : null;
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    if (accent) {
      element.style.setProperty("--accent", accent);
      element.style.setProperty("--accent-contrast", readableTextOn(accent));
    } else {
      element.style.removeProperty("--accent");
      element.style.removeProperty("--accent-contrast");
    }
  }, [accent]);
  return (
    <section
      ref={ref}
      className="card preview"
      aria-labelledby="preview-title"
      data-testid="preview"
    >
      <h3 id="preview-title" className="preview-title">
        {t("preview")}
      </h3>
      <div className="preview-screen">
        <header className="flow-header">
          {props.logo ? (
            // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
            <img className="flow-logo" src={props.logo} alt={t("logoAlt", { partner: name })} />
          ) : null}
          <span className="flow-partner">{name}</span>
        </header>
        <p className="preview-heading">{consent("title", { partner: name })}</p>
        {props.purpose.trim() ? (
          <>
            <p className="preview-subheading">{consent("purposeTitle", { partner: name })}</p>
            <p>{props.purpose}</p>
          </>
        ) : null}
        <p className="small muted">{consent("duration", { partner: name })}</p>
        <p>
          <span className="button button-block">{consent("approve")}</span>
        </p>
      </div>
    </section>
  );
}
