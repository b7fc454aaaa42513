/** /runs/new?dataset=&server=&model=: the new-run form, pre-filled from the URL. */
import { Link, useSearchParams } from "react-router";
import { NewRunForm } from "../components/NewRunForm";

/** The page. */
export default function NewRunPage() {
  const [sp] = useSearchParams();
  return (
    <div className="page">
      <p className="crumbs">
        <Link to="/">Runs</Link> / New run
      </p>
      <h1>New run</h1>
      <p className="lead">
        Ask a decision server every question of a labelled dataset. The answers are stored, so charts and
        calibrations never call the server again.
      </p>
      <section className="panel">
        <NewRunForm
          prefill={{
            dataset: sp.get("dataset") ?? undefined,
            serverId: sp.get("server") ?? undefined,
            model: sp.get("model") ?? undefined,
          }}
        />
      </section>
    </div>
  );
}
