/** Unknown address. */
import { Link, useLocation } from "react-router";
import { Empty } from "../components/States";

/** The page. */
export default function NotFoundPage() {
  const loc = useLocation();
  return (
    <Empty
      title="No page at this address"
      action={
        <Link className="button primary" to="/">
          Go to the runs
        </Link>
      }
    >
      <code>{loc.pathname}</code> is not a page of the workbench.
    </Empty>
  );
}
