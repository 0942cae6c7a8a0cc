"use client";

import { useTranslations } from "next-intl";
import type { ClientAction } from "./use-clients";
import { ConfirmDialog } from "./ui/confirm-dialog";

/** The confirmation before a client's secret is rotated or the client deleted. */
export function ClientConfirm(props: {
  action: ClientAction | null;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const t = useTranslations("Dashboard.clients");
  const { action } = props;
  const deleting = action?.kind === "delete";
  return (
    <ConfirmDialog
      open={action !== null}
      title={
        deleting
          ? t("deleteTitle", { name: action.client.name })
          : t("rotateTitle", { name: action?.client.name ?? "" })
      }
      confirmLabel={deleting ? t("delete") : t("rotate")}
      busyLabel={deleting ? t("deleting") : t("rotating")}
      busy={props.busy}
      danger={deleting}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      <p>{deleting ? t("deleteBody") : t("rotateBody")}</p>
    </ConfirmDialog>
  );
}
