import type { ReportData } from './report-data.js';
export declare function escapeHtml(text: string): string;
export declare function renderReportHtml(data: ReportData): string;
