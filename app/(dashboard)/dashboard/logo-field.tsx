"use client";

import { useTranslations } from "next-intl";
import { useRef } from "react";
import { BusyButton } from "./ui/busy-button";
import { FieldErrors } from "./ui/form-alert";

/**
 * The logo as it is shown: the image itself with Replace and Remove (or
 * Upload when there is none). The file input is hidden behind a button, so
 * the keyboard reaches it like any other action; choosing a file uploads it.
 */
export function LogoField(props: {
  logo: string | null;
  partnerName: string;
  busy: "upload" | "remove" | null;
  problems: string[] | undefined;
  onUpload: (file: File) => void;
  onRemove: () => void;
}) {
  const t = useTranslations("Dashboard");
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className="field" role="group" aria-labelledby="logo-label">
      <span id="logo-label" className="label">
        {t("fields.logo")}
      </span>
      <div className="logo-row">
        <div className="logo-frame" data-testid="logo-frame">
          {props.logo ? (
            // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
            <img src={props.logo} alt={t("logoCurrent", { partner: props.partnerName })} />
          ) : (
            <span className="small muted">{t("logoNone")}</span>
          )}
        </div>
        <div className="logo-actions">
          <BusyButton
            className="button-secondary"
            busy={props.busy === "upload"}
            busyLabel={t("logoUploading")}
            aria-describedby="logoFile-help logo-problem"
            onClick={() => input.current?.click()}
          >
            {props.logo ? t("logoReplace") : t("logoUpload")}
          </BusyButton>
          {props.logo ? (
            <BusyButton
              className="button-link"
              busy={props.busy === "remove"}
              busyLabel={t("logoRemoving")}
              onClick={props.onRemove}
            >
              {t("logoRemove")}
            </BusyButton>
          ) : null}
        </div>
      </div>
      <input
        ref={input}
        id="logoFile"
        type="file"
        hidden
        aria-labelledby="logo-label"
        accept="image/png,image/jpeg,image/webp"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = "";
          if (file) props.onUpload(file);
        }}
      />
      <span id="logoFile-help" className="field-help">
        {t("logoHelp")}
      </span>
      <FieldErrors id="logo-problem" messages={props.problems} />
    </div>
  );
}
