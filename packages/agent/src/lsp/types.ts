// The shapes of the LSP messages this client reads (only the fields it uses).

export type LspPosition = { line: number; character: number };
export type LspRange = { start: LspPosition; end: LspPosition };
export type LspLocation = { uri: string; range: LspRange };
export type LspLocationLink = { targetUri: string; targetRange: LspRange; targetSelectionRange?: LspRange };

/** Severity 1 error, 2 warning, 3 information, 4 hint. */
export type LspDiagnostic = { range: LspRange; severity?: number; message: string; source?: string; code?: string | number };

export type LspDocumentSymbol = { name: string; detail?: string; kind: number; range: LspRange; selectionRange?: LspRange; children?: LspDocumentSymbol[] };
/** SymbolInformation, or a WorkspaceSymbol whose location may have no range. */
export type LspSymbolInformation = { name: string; kind: number; containerName?: string; location: { uri: string; range?: LspRange } };

export type LspCallHierarchyItem = { name: string; kind: number; detail?: string; uri: string; range: LspRange; selectionRange: LspRange; data?: unknown };
export type LspIncomingCall = { from: LspCallHierarchyItem; fromRanges: LspRange[] };
export type LspOutgoingCall = { to: LspCallHierarchyItem; fromRanges: LspRange[] };

export type LspMarkedString = string | { language: string; value: string };
export type LspHover = { contents: LspMarkedString | LspMarkedString[] | { kind: string; value: string }; range?: LspRange };
