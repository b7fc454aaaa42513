/** The shell: header, navigation, and the lazily loaded pages. */
import { lazy, Suspense } from "react";
import { NavLink, Route, Routes } from "react-router";
import { Loading } from "./components/States";

const RunsPage = lazy(() => import("./pages/RunsPage"));
const NewRunPage = lazy(() => import("./pages/NewRunPage"));
const RunPage = lazy(() => import("./pages/RunPage"));
const CalibratePage = lazy(() => import("./pages/CalibratePage"));
const ComparePage = lazy(() => import("./pages/ComparePage"));
const ServersPage = lazy(() => import("./pages/ServersPage"));
const DatasetsPage = lazy(() => import("./pages/DatasetsPage"));
const NotFoundPage = lazy(() => import("./pages/NotFoundPage"));

const NAV = [
  { to: "/", label: "Runs", end: true },
  { to: "/compare", label: "Compare" },
  { to: "/servers", label: "Servers" },
  { to: "/datasets", label: "Datasets" },
];

/** The app: every view is a route, and every view's state is in its URL. */
export function App() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <NavLink to="/" className="brand" aria-label="Decision workbench, runs">
          <svg viewBox="0 0 16 16" width="20" height="20" aria-hidden="true">
            <path d="M1 15 15 1" stroke="#93c5fd" strokeWidth="1.6" />
            <circle cx="5" cy="9" r="1.8" fill="#fbbf24" />
            <circle cx="11" cy="7" r="1.8" fill="#fbbf24" />
          </svg>
          Decision workbench
        </NavLink>
        <nav aria-label="Main">
          <ul className="nav">
            {NAV.map((n) => (
              <li key={n.to}>
                <NavLink
                  to={n.to}
                  end={n.end}
                  className={({ isActive }) => (isActive ? "active" : undefined)}
                >
                  {n.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading label="Loading the page…" />}>
          <Routes>
            <Route path="/" element={<RunsPage />} />
            <Route path="/runs" element={<RunsPage />} />
            <Route path="/runs/new" element={<NewRunPage />} />
            <Route path="/runs/:id" element={<RunPage />} />
            <Route path="/runs/:id/calibrate" element={<CalibratePage />} />
            <Route path="/compare" element={<ComparePage />} />
            <Route path="/servers" element={<ServersPage />} />
            <Route path="/datasets" element={<DatasetsPage />} />
            <Route path="/datasets/:name" element={<DatasetsPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </Suspense>
      </main>
    </>
  );
}
