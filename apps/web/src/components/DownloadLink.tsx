/**
 * A link to a file of the API (exports, reports, calibration files). Without a token it is a plain download link.
 * With one, a click fetches the file with the token in its header (never in the URL) and saves it from memory.
 */

import { type ReactNode, useState } from "react";
import { apiHeaders, errorFromResponse } from "../api/client";
import { getToken } from "../api/token";

export function DownloadLink(props: {
  href: string;
  filename: string;
  className?: string;
  children: ReactNode;
}) {
  const [error, setError] = useState<string | null>(null);
  const onClick = async (e: React.MouseEvent<HTMLAnchorElement>) => {
    if (!getToken()) return; // the browser downloads the link itself
    e.preventDefault();
    setError(null);
    try {
      const res = await fetch(props.href, { headers: apiHeaders() });
      if (!res.ok) throw await errorFromResponse(res);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = props.filename;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <>
      <a className={props.className} href={props.href} download={props.filename} onClick={onClick}>
        {props.children}
      </a>
      {error && (
        <span role="alert" className="download-error small">
          {" "}
          {error}
        </span>
      )}
    </>
  );
}
