import { useTranslations } from "next-intl";

/** "I have saved the backup file", with why it matters; the step goes on only when it is ticked. */
export function BackupSavedCheck(props: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const t = useTranslations("Setup");
  return (
    <>
      <div className="key-setup-check">
        <input
          id={props.id}
          name="saved"
          type="checkbox"
          checked={props.checked}
          onChange={(event) => props.onChange(event.currentTarget.checked)}
          aria-describedby={`${props.id}-help`}
        />
        <label htmlFor={props.id}>{t("savedLabel")}</label>
      </div>
      <span id={`${props.id}-help`} className="field-help">
        {t("savedHelp")}
      </span>
    </>
  );
}
