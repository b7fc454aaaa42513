import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** Modules of Recharts and its dependencies: loaded only by the pages that draw charts. */
const CHARTS =
  /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?(?:recharts|d3-[^\\/]+|victory-vendor|internmap|@reduxjs|react-redux|redux|redux-thunk|immer|reselect|decimal\.js-light|es-toolkit|eventemitter3|tiny-invariant|use-sync-external-store)[\\/]/;
/** React, react-dom and the router: needed by every page. */
const REACT =
  /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?(?:react|react-dom|scheduler|react-router|cookie|set-cookie-parser)[\\/]/;
/** TanStack Query. */
const QUERY = /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?@tanstack[\\/]/;

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: { "/api": { target: "http://127.0.0.1:8710", changeOrigin: false } },
  },
  preview: { proxy: { "/api": { target: "http://127.0.0.1:8710" } } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // Higher priority claims a module first: React must not be pulled into the charts chunk as
            // a dependency of Recharts, or the first page would load the charts.
            { name: "react", test: REACT, priority: 3 },
            { name: "query", test: QUERY, priority: 2 },
            { name: "charts", test: CHARTS, priority: 1 },
          ],
        },
      },
    },
  },
});
