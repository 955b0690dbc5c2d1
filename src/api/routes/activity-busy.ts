import { ActivityReportsBusyError } from '../../activity/report-thread.js';
import { ApiError, type OrRefusal } from '../api-error.js';

/** An activity report, or the 503 refusal when too many wait to be made (see ActivityReportsBusyError). */
export function reportOrBusy<T>(report: Promise<T>): Promise<OrRefusal<T>> {
  return report.catch((error: unknown) => {
    if (error instanceof ActivityReportsBusyError) return ApiError.of('serviceUnavailable');
    throw error;
  });
}
