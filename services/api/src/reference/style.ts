/** The reference pages' stylesheet (served from here; the pages load nothing else). */
export const REFERENCE_CSS = `
:root { --fg: #1d2530; --muted: #5b6675; --line: #d5dbe3; --bg: #fff; --side: #f3f5f8; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: .6rem 1.2rem; background: #12263f; color: #fff; display: flex; gap: 1rem; align-items: baseline; position: sticky; top: 0; z-index: 2; }
header a { color: #fff; font-weight: 700; text-decoration: none; }
header .title { color: #dce7f5; }
a { color: var(--accent); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; word-break: break-word; }
.layout { display: grid; grid-template-columns: 20rem 1fr; }
.toc { background: var(--side); border-right: 1px solid var(--line); padding: .8rem 1rem; position: sticky; top: 2.6rem; height: calc(100vh - 2.6rem); overflow: auto; font-size: .88rem; }
.toc ul { list-style: none; margin: .2rem 0 .6rem; padding: 0; }
.toc li { margin: .15rem 0; }
.toc a { text-decoration: none; color: var(--fg); }
.toc summary { font-weight: 600; cursor: pointer; }
main { padding: 1rem 2rem 4rem; min-width: 0; }
main.narrow { max-width: 1000px; margin: 0 auto; }
h1 { font-size: 1.6rem; margin: .3rem 0 .6rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid var(--line); padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: 0 0 .4rem; }
h4 { font-size: .95rem; margin: .9rem 0 .3rem; }
.version { color: var(--muted); font-weight: 400; }
.meta { color: var(--muted); font-size: .9rem; }
.op, .schema { border: 1px solid var(--line); border-radius: 4px; padding: .8rem 1rem; margin: 1rem 0; }
.summary { font-weight: 600; margin: .2rem 0; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--side); }
.m { display: inline-block; min-width: 4.2em; text-align: center; font-size: .75rem; font-weight: 700; color: #fff; border-radius: 3px; padding: 0 .3rem; }
.m-get { background: #1d6b34; } .m-post { background: #0b5cad; } .m-put { background: #8a5a00; } .m-patch { background: #6b4fa3; }
.m-delete { background: #a8261c; } .m-head, .m-options { background: #5b6675; }
.status { font-weight: 700; }
.s2 { color: #1d6b34; } .s3 { color: #0b5cad; } .s4 { color: #8a5a00; } .s5 { color: #a8261c; }
td:first-child > code { white-space: nowrap; word-break: normal; }
.req { color: #a8261c; font-weight: 700; }
.rules { color: var(--muted); font-size: .85em; }
.tag { background: #fbe9e7; color: #a8261c; font-size: .75rem; padding: 0 .3rem; border-radius: 3px; }
.muted { color: var(--muted); }
details > summary { cursor: pointer; color: var(--accent); }
@media (max-width: 800px) { .layout { grid-template-columns: 1fr; } .toc { position: static; height: auto; } }
`;
