// The phone's bottom bar: which view fills the screen under ~700 px (console.css shows one pane at
// a time there; on a wide screen the bar is hidden and every pane is shown side by side).

export type Tab = "chat" | "nodes" | "work" | "terminal" | "admin";

export function TabBar(props: {
  tab: Tab;
  setTab: (tab: Tab) => void;
  admin: boolean;
  /** Shown beside a tab's name: what waits there (approvals on Work, open terminals). */
  counts: Partial<Record<Tab, number>>;
}) {
  const tabs: [Tab, string][] = [
    ["chat", "Chat"],
    ["nodes", "Nodes"],
    ["work", "Work"],
    ["terminal", "Terminal"],
    ...(props.admin ? ([["admin", "Admin"]] as [Tab, string][]) : []),
  ];
  return (
    <nav class="tabbar" aria-label="Views">
      <div role="tablist" aria-label="Views">
        {tabs.map(([tab, label]) => {
          const count = props.counts[tab] ?? 0;
          return (
            <button
              type="button"
              role="tab"
              key={tab}
              id={`tab-${tab}`}
              aria-selected={props.tab === tab ? "true" : "false"}
              onClick={() => props.setTab(tab)}
            >
              {label}
              {count > 0 ? <span class="badge"> {count}</span> : null}
            </button>
          );
        })}
      </div>
    </nav>
  );
}
