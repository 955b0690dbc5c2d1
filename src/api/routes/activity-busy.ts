import { ActivityReportsBusyError } from '../../activity/report-thread.js';
import { ApiError } from '../api-error.js';

/** An activity report, or 503 when too many wait to be made (see ActivityReportsBusyError). */
export async function reportOrBusy<T>(report: Promise<T>): Promise<T> {
  try {
    return await report;
  } catch (error) {
    throw error instanceof ActivityReportsBusyError ? ApiError.of('serviceUnavailable') : error;
  }
}
